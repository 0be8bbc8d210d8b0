/**
 * The {@code rangekv} command (picocli): one class per subcommand. The root command only wires
 * subcommands together. Nothing may depend on this package.
 */
package dev.rangekv.cli;
