package dev.rangekv.cli.node;

import dev.rangekv.cli.cluster.CliException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/**
 * {@code rangekv start --config FILE}: a node's options from a properties file, one per line, named as
 * on the command line without the dashes ({@code node-id = n1}, {@code join = h1:7001,h2:7001}); a
 * controller setting is {@code set.NAME = VALUE}. Options given on the command line win: the file's
 * options are added in front of the command's own, only for options the command line does not name
 * (for {@code --set}, per setting). Picocli then parses and checks everything as usual, so a misspelt
 * name is an unknown-option error. Stateless.
 */
public final class ConfigFile {
  private static final String OPTION = "--config";
  private static final String SET = "set.";

  private ConfigFile() {}

  /** {@code args} with the options of the {@code --config} file of a {@code start} command inserted. */
  public static String[] expand(String[] args) {
    int start = commandIndex(args);
    if (start < 0 || !args[start].equals("start")) {
      return args;
    }
    Path file = null;
    for (int i = start + 1; i < args.length; i++) {
      if (args[i].equals(OPTION) && i + 1 < args.length) {
        file = Path.of(args[i + 1]);
      } else if (args[i].startsWith(OPTION + "=")) {
        file = Path.of(args[i].substring(OPTION.length() + 1));
      }
    }
    if (file == null) {
      return args;
    }
    List<String> given = List.of(args).subList(start + 1, args.length);
    List<String> out = new ArrayList<>(List.of(args).subList(0, start + 1));
    Properties p = read(file);
    for (String name : new TreeSet<>(p.stringPropertyNames())) {
      String value = p.getProperty(name).strip();
      if (name.startsWith(SET)) {
        String setting = name.substring(SET.length());
        if (given.stream().noneMatch(a -> a.startsWith(setting + "=") || a.startsWith("--set=" + setting + "="))) {
          out.add("--set");
          out.add(setting + "=" + value);
        }
      } else if (!named(given, "--" + name)) {
        out.add("--" + name + "=" + value);
      }
    }
    out.addAll(given);
    return out.toArray(new String[0]);
  }

  private static boolean named(List<String> given, String option) {
    return given.stream().anyMatch(a -> a.equals(option) || a.startsWith(option + "="));
  }

  private static int commandIndex(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("-")) {
        return i;
      }
    }
    return -1;
  }

  private static Properties read(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      throw CliException.invalidInput("--config " + file + ": no such file", e);
    } catch (IOException | IllegalArgumentException e) {
      throw CliException.invalidInput("--config " + file + " could not be read: " + e.getMessage(), e);
    }
    return p;
  }
}
