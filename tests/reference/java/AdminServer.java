// One long-lived JVM for the reference cluster's admin commands (tests/reference/java_cluster.py), so that each
// `mqadmin updateTopic ...` costs a call instead of a JVM start: each line on stdin is one command line of
// org.apache.rocketmq.tools.command.MQAdminStartup, its arguments separated by tabs; what the command printed
// comes back on stdout, followed by a line holding only "\0END". Run as a source file: java -cp CP AdminServer.java
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.tools.command.MQAdminStartup;

public class AdminServer {
    public static void main(String[] ignored) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("\u0000READY");
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            PrintStream capture = new PrintStream(buffer, true, StandardCharsets.UTF_8);
            System.setOut(capture);
            System.setErr(capture);
            try {
                MQAdminStartup.main0(line.split("\t"), null);
            } catch (Throwable t) {
                t.printStackTrace(capture);
            } finally {
                capture.flush();
                System.setOut(out);
                System.setErr(err);
            }
            String printed = buffer.toString(StandardCharsets.UTF_8).replace("\u0000", "");
            out.print(printed);
            if (!printed.endsWith("\n")) {
                out.println();
            }
            out.println("\u0000END");
            out.flush();
        }
    }
}
