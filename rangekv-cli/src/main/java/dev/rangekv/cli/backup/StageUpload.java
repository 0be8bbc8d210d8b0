package dev.rangekv.cli.backup;

import com.google.protobuf.ByteString;
import dev.rangekv.proto.backup.BackupFile;
import dev.rangekv.proto.backup.BackupServiceGrpc;
import dev.rangekv.proto.backup.StageChunk;
import dev.rangekv.proto.backup.StageFilesResponse;
import dev.rangekv.proto.backup.StageHeader;
import dev.rangekv.proto.replica.FileChunk;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends one range's restore files to one replica's node ({@code StageFiles}): the header, then each
 * file in chunks, sent only while gRPC's flow control has room, so a slow node bounds the memory used.
 */
final class StageUpload {
  private static final int CHUNK = 1 << 20;

  private StageUpload() {}

  /** Stages the files of {@code header} read from {@code from}; fails with the node's refusal. */
  static StageFilesResponse send(ManagedChannel channel, Destination from, StageHeader header, long timeoutMillis)
      throws IOException, InterruptedException {
    CompletableFuture<StageFilesResponse> reply = new CompletableFuture<>();
    Object ready = new Object();
    java.util.concurrent.atomic.AtomicReference<ClientCallStreamObserver<StageChunk>> requests =
        new java.util.concurrent.atomic.AtomicReference<>();
    ClientResponseObserver<StageChunk, StageFilesResponse> responses = new ClientResponseObserver<>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<StageChunk> stream) {
        requests.set(stream);
        stream.setOnReadyHandler(() -> {
          synchronized (ready) {
            ready.notifyAll();
          }
        });
      }

      @Override
      public void onNext(StageFilesResponse value) {
        reply.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        reply.completeExceptionally(t);
        synchronized (ready) {
          ready.notifyAll();
        }
      }

      @Override
      public void onCompleted() {
        reply.completeExceptionally(new IllegalStateException("the node answered nothing"));
      }
    };
    BackupServiceGrpc.newStub(channel).withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS).stageFiles(responses);
    ClientCallStreamObserver<StageChunk> out = requests.get();
    try {
      send(out, ready, reply, StageChunk.newBuilder().setHeader(header).build());
      byte[] buf = new byte[CHUNK];
      for (int i = 0; i < header.getFilesCount(); i++) {
        BackupFile f = header.getFiles(i);
        long sent = 0;
        try (InputStream in = from.open(f.getName())) {
          do {
            int n = in.readNBytes(buf, 0, CHUNK);
            sent += n;
            boolean last = n < CHUNK || sent >= f.getSize();
            send(out, ready, reply, StageChunk.newBuilder().setFile(FileChunk.newBuilder()
                .setFileIndex(i).setData(ByteString.copyFrom(buf, 0, n)).setLast(last)).build());
            if (last) {
              break;
            }
          } while (true);
        }
      }
      out.onCompleted();
    } catch (IOException | RuntimeException | InterruptedException e) {
      out.cancel("restore upload failed", e);
      throw e;
    }
    try {
      return reply.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof StatusRuntimeException s ? s : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out staging restore files", e);
    }
  }

  private static void send(ClientCallStreamObserver<StageChunk> out, Object ready,
      CompletableFuture<StageFilesResponse> reply, StageChunk chunk) throws InterruptedException {
    synchronized (ready) {
      while (!out.isReady() && !reply.isDone()) {
        ready.wait(1000); // woken by the ready handler; the bound re-checks a readiness change it missed
      }
    }
    if (reply.isCompletedExceptionally()) {
      try {
        reply.join();
      } catch (java.util.concurrent.CompletionException e) {
        throw e.getCause() instanceof StatusRuntimeException s ? s : e;
      }
    }
    out.onNext(chunk);
  }
}
