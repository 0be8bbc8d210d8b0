package dev.rangekv.server.observe;

/** How the latency histograms group client calls: reads, writes and scans each get their own. */
enum RequestKind {
  READ, WRITE, SCAN, OTHER;

  private static final String KV = "rangekv.v1.KvService/";

  /** The kind of a gRPC method by its full name ({@code rangekv.v1.KvService/Get}, ...). */
  static RequestKind of(String fullMethodName) {
    if (!fullMethodName.startsWith(KV)) {
      return OTHER;
    }
    return switch (fullMethodName.substring(KV.length())) {
      case "Get", "MultiGet" -> READ;
      case "Scan" -> SCAN;
      case "Put", "Delete", "CompareAndSet", "DeleteRange", "Batch" -> WRITE;
      default -> OTHER;
    };
  }

  String tag() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
