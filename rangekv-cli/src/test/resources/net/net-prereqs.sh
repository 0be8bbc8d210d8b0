#!/usr/bin/env bash
# What the network-namespace fault tests need beyond Java and Maven, checked (and nftables installed
# when missing) before a run: root, iproute2 (ip netns, veth, bridge), tc with the tbf qdisc, nftables
# with numgen. Prints one line per missing piece and exits 1; prints "ok" and exits 0 when all is there.
# NetNamespaces (the Java side) runs this and fails the test with its output: never a silent skip.
set -u
missing=()
if [ "$(id -u)" != 0 ]; then
  missing+=("root: the test makes network namespaces, veth pairs and a bridge (run the build as root)")
fi
command -v ip >/dev/null 2>&1 || missing+=("ip: install iproute2")
command -v tc >/dev/null 2>&1 || missing+=("tc: install iproute2")
if ! command -v nft >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables) >/tmp/rangekv-nftables-install.log 2>&1
  fi
  command -v nft >/dev/null 2>&1 \
    || missing+=("nft: install the nftables package (apt-get install -y nftables failed or there is no apt-get; see /tmp/rangekv-nftables-install.log)")
fi
if [ ${#missing[@]} -eq 0 ]; then
  ns="rkcheck-$$"
  if ! ip netns add "$ns" 2>/dev/null; then
    missing+=("ip netns add: this kernel or container does not allow network namespaces")
  else
    ip -n "$ns" link add br0 type bridge 2>/dev/null || missing+=("a bridge device (kernel bridge support)")
    if ip -n "$ns" link add va type veth peer name vb 2>/dev/null; then
      ip -n "$ns" link set va up 2>/dev/null
      ip netns exec "$ns" tc qdisc add dev va root tbf rate 1mbit burst 32kbit latency 200ms 2>/dev/null \
        || missing+=("the tbf qdisc (kernel sch_tbf) for slow links")
    else
      missing+=("veth pairs (kernel veth support)")
    fi
    if command -v nft >/dev/null 2>&1; then
      ip netns exec "$ns" nft -f - 2>/dev/null <<'NFT' || missing+=("nftables in the kernel (nf_tables with numgen) for silent drops and packet loss")
table inet rk {
  chain input { type filter hook input priority 0; numgen random mod 100 < 30 drop; }
}
NFT
    fi
    ip netns del "$ns" 2>/dev/null
  fi
fi
if [ ${#missing[@]} -ne 0 ]; then
  printf 'missing for the network fault tests: %s\n' "${missing[@]}"
  exit 1
fi
echo ok
