#!/bin/bash
# One comparison round of the storage engine against RocksDB's db_bench (BENCHMARKS.md, "Storage engine"):
# db_bench, then the JMH NodeStoreBenchmark, same sizes and options, back to back, with load averages.
# Needs db_bench (Debian: apt-get install -y rocksdb-tools) and a built rangekv-bench/target/benchmarks.jar.
# Usage: rangekv-bench/scripts/storage-vs-dbbench.sh [extra JMH args, e.g. -Djmh.ignoreLock=true goes in JAVA_OPTS]
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=rangekv-bench/target/benchmarks.jar
COMMON="--db=/tmp/dbbench-1m --num=1000000 --key_size=16 --value_size=100 --compression_type=lz4 \
  --compression_ratio=1.0 --cache_size=67108864 --bloom_bits=10 --write_buffer_size=16777216 \
  --max_write_buffer_number=3 --block_size=4096 --cache_index_and_filter_blocks=1 \
  --pin_l0_filter_and_index_blocks_in_cache=1 --level_compaction_dynamic_level_bytes=1 \
  --max_background_jobs=2 --threads=1 --seek_nexts=10 --sync=0 --disable_wal=0 --seed=42"
rm -rf /tmp/dbbench-1m /tmp/rangekv-bench-storage-1000000
echo "load before db_bench: $(cat /proc/loadavg)"
db_bench $COMMON --benchmarks=fillseq,compact 2>&1 | grep micros/op || true
# One phase per process, so bash's `time` gives each phase's CPU (user+sys, all db_bench threads).
TIMEFORMAT="  cpu user=%U s sys=%S s (300000 ops)"
for phase in readrandom seekrandom overwrite; do
  time (db_bench $COMMON --use_existing_db=1 --benchmarks=$phase --reads=300000 --writes=300000 2>&1 | grep micros/op || true)
done
echo "load before jmh: $(cat /proc/loadavg)"
java ${JAVA_OPTS:-} -jar "$JAR" 'dev.rangekv.bench.storage.NodeStoreBenchmark.(get|scan10)' -f 1 -wi 2 -i 3 -w 2s -r 3s "$@" \
  2>&1 | grep -E "Iteration|# Benchmark:|avgt|cpu-time|us/op" || true
java ${JAVA_OPTS:-} -jar "$JAR" 'dev.rangekv.bench.storage.NodeStoreBenchmark.put' -f 1 -wi 2 -i 3 -w 2s -r 3s "$@" \
  2>&1 | grep -E "Iteration|# Benchmark:|avgt|cpu-time|us/op" || true
echo "load after: $(cat /proc/loadavg)"
