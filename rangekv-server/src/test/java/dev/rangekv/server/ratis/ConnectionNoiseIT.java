package dev.rangekv.server.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rangekv.server.node.LocalCluster;
import dev.rangekv.server.node.NodeConfig;
import dev.rangekv.server.node.RaftTuning;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ConnectionNoiseIT {
  @TempDir
  Path dir;

  @Test
  void warnsAtMostOncePerMinute_andNeverPublishesTheRecord() {
    AtomicLong now = new AtomicLong(0);
    ConnectionNoise noise = new ConnectionNoise(ConnectionNoise.LOGGERS.get(0), now::get);
    assertThat(noise.shouldWarn()).isTrue();
    now.addAndGet(TimeUnit.SECONDS.toNanos(59));
    assertThat(noise.shouldWarn()).isFalse();
    now.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(noise.shouldWarn()).isTrue();
    LogRecord r = new LogRecord(Level.INFO, "Transport failed");
    r.setThrown(new IllegalStateException("Unexpected HTTP/1.x request: GET /"));
    assertThat(noise.isLoggable(r)).isFalse();
  }

  @Test
  @Timeout(60)
  void garbageBytes_onTheClientAndRaftPorts_publishNoTransportStackTrace() throws Exception {
    List<LogRecord> published = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        published.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    try (LocalCluster cluster = LocalCluster.start(1, dir, RaftTuning.forTests())) {
      List<Logger> loggers = ConnectionNoise.LOGGERS.stream().map(Logger::getLogger).toList();
      loggers.forEach(l -> l.addHandler(capture));
      try {
        NodeConfig c = cluster.config(0);
        for (int port : new int[] {c.clientPort(), c.raftPort()}) {
          for (int i = 0; i < 3; i++) {
            try (Socket s = new Socket("127.0.0.1", port)) {
              OutputStream out = s.getOutputStream();
              out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n\u0000\u0001garbage".getBytes(StandardCharsets.ISO_8859_1));
              out.flush();
              s.getInputStream().read(new byte[256]); // until the node closes the connection
            }
          }
        }
        // the node still serves after it
        assertThat(cluster.node(0).directory()).isNotNull();
      } finally {
        loggers.forEach(l -> l.removeHandler(capture));
      }
    }
    assertThat(published).as("records published by the transports' loggers").isEmpty();
  }
}
