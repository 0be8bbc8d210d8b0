import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.util.Endpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Thread census of SOFAJRaft 1.4.1: 3 in-process endpoints, G groups, shared RPC server and timers. */
public class JraftThreads {
  public static void main(String[] args) throws Exception {
    int groups = Integer.parseInt(args[0]);
    int basePort = Integer.parseInt(args[1]);
    Path dir = Files.createTempDirectory("jraft-threads");
    int before = Thread.activeCount();
    List<PeerId> peers = new ArrayList<>();
    for (int n = 0; n < 3; n++) peers.add(new PeerId("127.0.0.1", basePort + n));
    Configuration conf = new Configuration(peers);
    List<RpcServer> rpcs = new ArrayList<>();
    for (PeerId p : peers) {
      RpcServer rpc = RaftRpcServerFactory.createRaftRpcServer(p.getEndpoint());
      rpc.init(null);
      rpcs.add(rpc);
    }
    int afterRpc = Thread.activeCount();
    List<Node> nodes = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      for (int n = 0; n < 3; n++) {
        NodeOptions o = new NodeOptions();
        o.setFsm(new StateMachineAdapter() {
          @Override public void onApply(Iterator it) { while (it.hasNext()) it.next(); }
        });
        Path d = Files.createDirectories(dir.resolve("g" + g + "-n" + n));
        o.setLogUri(d.resolve("log").toString());
        o.setRaftMetaUri(d.resolve("meta").toString());
        o.setInitialConf(conf);
        o.setSharedElectionTimer(true);
        o.setSharedVoteTimer(true);
        o.setSharedStepDownTimer(true);
        o.setSharedSnapshotTimer(true);
        nodes.add(new RaftGroupService("g" + g, peers.get(n), o, rpcs.get(n), true).start(false));
      }
    }
    long deadline = System.currentTimeMillis() + 60_000;
    for (Node node : nodes) {
      while (node.getLeaderId() == null || node.getLeaderId().isEmpty()) {
        if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no leader " + node.getGroupId());
        Thread.sleep(20);
      }
    }
    Map<String, Integer> byName = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      byName.merge(t.getName().replaceAll("[-_#]?\\d+", "#"), 1, Integer::sum);
    }
    int tasks;
    try (var s = Files.list(Path.of("/proc/self/task"))) { tasks = (int) s.count(); }
    System.out.printf("groups=%d javaThreadsBefore=%d afterRpcServers=%d afterGroupsWithLeaders=%d osThreads=%d%n",
        groups, before, afterRpc, Thread.activeCount(), tasks);
    byName.forEach((k, v) -> System.out.printf("  %4d %s%n", v, k));
    for (Node node : nodes) node.shutdown();
    System.exit(0);
  }
}
