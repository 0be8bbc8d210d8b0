package dev.rangekv.server.ratis;

import com.google.protobuf.MessageLite;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * A Ratis {@link Message} that carries a protobuf value as an object and encodes it only when Ratis
 * asks for bytes. A command submitted on this node reaches the state machine as the same object (no
 * parse on the leader), and an apply or query result reaches the waiting caller on this node without
 * an encode and a parse; followers' results, which nobody reads, are never encoded. Immutable.
 *
 * @param <M> the protobuf message type
 */
public final class ProtoMessage<M extends MessageLite> implements Message {
  private final M value;
  private volatile ByteString content;

  private ProtoMessage(M value) {
    this.value = value;
  }

  public static <M extends MessageLite> ProtoMessage<M> of(M value) {
    return new ProtoMessage<>(value);
  }

  public M value() {
    return value;
  }

  @Override
  public ByteString getContent() {
    ByteString c = content;
    if (c == null) {
      c = UnsafeByteOperations.unsafeWrap(value.toByteArray()); // a fresh array nobody else holds
      content = c;
    }
    return c;
  }

  @Override
  public String toString() {
    return "ProtoMessage[" + value.getClass().getSimpleName() + "]";
  }
}
