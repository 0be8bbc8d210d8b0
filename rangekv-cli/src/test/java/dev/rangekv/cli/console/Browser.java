package dev.rangekv.cli.console;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Headless Debian Chromium driven through its chromedriver. Installs the packages with apt-get when they
 * are missing (CI runs as root); the flags keep Chromium off the network this machine does not have.
 */
final class Browser {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  private Browser() {}

  /**
   * Installs chromium and chromium-driver from Debian's packages unless both are there. The browser
   * tests run in parallel test JVMs: on a fresh machine two of them installed at once, and the second
   * apt-get failed on dpkg's lock. So one JVM installs at a time (a file lock), the others then find the
   * packages there, and apt-get itself waits for a lock held by anyone else.
   */
  static void ensureInstalled() throws IOException, InterruptedException {
    if (installed()) {
      return;
    }
    Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), "rangekv-browser-install.lock");
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      FileLock lock = channel.lock(); // released when the channel closes
      if (!installed()) { // else another test JVM installed them while this one waited
        run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=600", "update", "-qq"));
        run(List.of("apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq", "chromium", "chromium-driver"));
      }
      lock.release();
    }
    if (!installed()) {
      throw new IllegalStateException("apt-get installed no " + CHROMIUM + " and " + DRIVER);
    }
  }

  private static boolean installed() {
    return Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER);
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process p = pb.start();
    if (!p.waitFor(15, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " failed (the browser test installs Chromium as root)");
    }
  }

  static ChromeDriver start(Path profile) {
    ChromeOptions o = new ChromeOptions();
    o.setBinary(CHROMIUM.toFile());
    o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", "--window-size=1400,900", "--user-data-dir=" + profile.toAbsolutePath());
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    o.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
        .usingAnyFreePort().build();
    ChromeDriver driver = new ChromeDriver(service, o);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(30));
    return driver;
  }

  /** The console's SEVERE lines (errors, failed loads) since the last call. */
  static List<String> errors(ChromeDriver driver) {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
        .map(LogEntry::toString)
        .toList();
  }
}
