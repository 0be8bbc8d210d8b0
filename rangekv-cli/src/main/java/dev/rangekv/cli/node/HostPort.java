package dev.rangekv.cli.node;

import picocli.CommandLine;

/**
 * A {@code HOST:PORT} argument ({@code [v6]:port} too). Immutable.
 *
 * @param host a host name or address, without brackets
 * @param port 1..65535
 */
public record HostPort(String host, int port) {
  public HostPort {
    if (host.isEmpty() || port < 1 || port > 65535) {
      throw new IllegalArgumentException("bad address host='" + host + "' port=" + port);
    }
  }

  public static HostPort parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (port is not a number)", e);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("'" + text + "': port must be in [1, 65535]");
    }
    return new HostPort(host, port);
  }

  public boolean isWildcard() {
    return host.equals("0.0.0.0") || host.equals("::");
  }

  @Override
  public String toString() {
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  /** picocli converter. */
  public static final class Converter implements CommandLine.ITypeConverter<HostPort> {
    @Override
    public HostPort convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
