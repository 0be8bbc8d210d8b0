package dev.rangekv.server.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.rangekv.core.key.Key;
import dev.rangekv.core.key.RangeEnd;
import dev.rangekv.core.rangemap.RangeDescriptor;
import dev.rangekv.proto.BatchRequest;
import dev.rangekv.proto.DeleteRangeSpan;
import dev.rangekv.proto.GetRequest;
import dev.rangekv.proto.KeyValueProto;
import dev.rangekv.proto.Mutation;
import dev.rangekv.proto.RangeHeader;
import dev.rangekv.proto.ScanRequest;
import dev.rangekv.proto.replica.RangeCommand;
import dev.rangekv.proto.replica.RangeQuery;
import dev.rangekv.proto.replica.SplitCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

class RangeChecksTest {
  private static final RangeDescriptor RANGE =
      new RangeDescriptor(7, Key.utf8("b"), RangeEnd.at(Key.utf8("m")), List.of("n1"), 3);

  @Test
  void write_insideBoundsAtCurrentGeneration_isAccepted() {
    assertThat(RangeChecks.refuse(put(7, 3, "b"), RANGE)).isEmpty();
    assertThat(RangeChecks.refuse(put(7, 3, "lzz"), RANGE)).isEmpty();
  }

  @Test
  void write_withWrongRangeOrGeneration_orKeyOutside_isRefused() {
    assertThat(RangeChecks.refuse(put(8, 3, "c"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(put(7, 2, "c"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(put(7, 4, "c"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(put(7, 3, "a"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(put(7, 3, "m"), RANGE)).isPresent();
  }

  @Test
  void deleteRange_andScan_mustLieInsideTheRange() {
    RangeCommand inside = cmd(7, 3, Mutation.newBuilder().setDeleteRange(DeleteRangeSpan.newBuilder()
        .setLo(bytes("c")).setHi(bytes("m"))).build());
    RangeCommand beyond = cmd(7, 3, Mutation.newBuilder().setDeleteRange(DeleteRangeSpan.newBuilder()
        .setLo(bytes("c")).setHiInfinite(true)).build());
    assertThat(RangeChecks.refuse(inside, RANGE)).isEmpty();
    assertThat(RangeChecks.refuse(beyond, RANGE)).isPresent();
    assertThat(RangeChecks.refuse(scan("b", "m"), RANGE)).isEmpty();
    assertThat(RangeChecks.refuse(scan("a", "c"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(RangeQuery.newBuilder().setHeader(header(7, 3))
        .setGet(GetRequest.newBuilder().setKey(bytes("z"))).build(), RANGE)).isPresent();
  }

  @Test
  void split_keyMustBeStrictlyInside() {
    assertThat(RangeChecks.refuse(split("c"), RANGE)).isEmpty();
    assertThat(RangeChecks.refuse(split("b"), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(split("m"), RANGE)).isPresent();
  }

  @Test
  void split_withoutANewChildId_isRefused() {
    assertThat(RangeChecks.refuse(split("c", 0), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(split("c", 7), RANGE)).isPresent();
    assertThat(RangeChecks.refuse(split("c", 8), RANGE)).isEmpty();
  }

  static RangeCommand put(long id, long gen, String key) {
    return cmd(id, gen, Mutation.newBuilder().setPut(KeyValueProto.newBuilder().setKey(bytes(key))).build());
  }

  private static RangeCommand cmd(long id, long gen, Mutation m) {
    return RangeCommand.newBuilder().setHeader(header(id, gen))
        .setBatch(BatchRequest.newBuilder().addMutations(m)).build();
  }

  private static RangeCommand split(String key) {
    return split(key, 9);
  }

  private static RangeCommand split(String key, long childId) {
    return RangeCommand.newBuilder().setHeader(header(7, 3))
        .setSplit(SplitCommand.newBuilder().setSplitKey(bytes(key)).setChildRangeId(childId)).build();
  }

  private static RangeQuery scan(String lo, String hi) {
    return RangeQuery.newBuilder().setHeader(header(7, 3))
        .setScan(ScanRequest.newBuilder().setLo(bytes(lo)).setHi(bytes(hi))).build();
  }

  private static RangeHeader header(long id, long gen) {
    return RangeHeader.newBuilder().setRangeId(id).setGeneration(gen).build();
  }

  private static ByteString bytes(String s) {
    return ByteString.copyFromUtf8(s);
  }
}
