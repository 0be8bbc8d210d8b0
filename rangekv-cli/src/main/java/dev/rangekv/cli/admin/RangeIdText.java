package dev.rangekv.cli.admin;

import picocli.CommandLine;

/** A range id on the command line: {@code 12} or {@code r12}, as the tables print it. */
public final class RangeIdText implements CommandLine.ITypeConverter<Long> {
  @Override
  public Long convert(String value) {
    String digits = value.startsWith("r") || value.startsWith("R") ? value.substring(1) : value;
    try {
      long id = Long.parseUnsignedLong(digits);
      if (id == 0) {
        throw new CommandLine.TypeConversionException("range ids start at 1, got '" + value + "'");
      }
      return id;
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a range id (e.g. 12 or r12)");
    }
  }
}
