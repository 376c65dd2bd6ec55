package mqdriver;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import org.apache.rocketmq.client.apis.ClientConfiguration;
import org.apache.rocketmq.client.apis.ClientServiceProvider;
import org.apache.rocketmq.client.apis.consumer.ConsumeResult;
import org.apache.rocketmq.client.apis.consumer.FilterExpression;
import org.apache.rocketmq.client.apis.consumer.FilterExpressionType;
import org.apache.rocketmq.client.apis.consumer.PushConsumer;
import org.apache.rocketmq.client.apis.consumer.SimpleConsumer;
import org.apache.rocketmq.client.apis.message.Message;
import org.apache.rocketmq.client.apis.message.MessageBuilder;
import org.apache.rocketmq.client.apis.message.MessageView;
import org.apache.rocketmq.client.apis.producer.Producer;
import org.apache.rocketmq.client.apis.producer.SendReceipt;
import org.apache.rocketmq.client.apis.producer.Transaction;
import org.apache.rocketmq.client.apis.producer.TransactionResolution;

/**
 * The driver of tests/clients/README.md around the official RocketMQ 5 Java client
 * (org.apache.rocketmq:rocketmq-client-java): {@code driver produce|receive|push|transact --endpoints E --topic T ...}.
 * stdout carries JSON lines only; System.out is pointed at stderr so that nothing else reaches stdout.
 */
public final class Driver {
    private static final PrintStream OUT =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static final int ASYNC_IN_FLIGHT = 16;
    private static final int RECEIVE_BATCH = 16;
    private static final Duration AWAIT = Duration.ofSeconds(5);

    private Driver() {
    }

    public static void main(String[] argv) {
        System.setOut(System.err);
        if (argv.length < 1) {
            usage("missing COMMAND");
        }
        String command = argv[0];
        Map<String, String> opts = parse(argv);
        int rc;
        try {
            switch (command) {
                case "produce":
                    rc = produce(opts);
                    break;
                case "receive":
                    rc = receive(opts);
                    break;
                case "push":
                    rc = push(opts);
                    break;
                case "transact":
                    rc = transact(opts);
                    break;
                default:
                    usage("unknown command " + command);
                    return;
            }
        } catch (Throwable t) {
            System.err.println("driver: " + describe(t));
            t.printStackTrace(System.err);
            rc = 1;
        }
        System.err.flush();
        // The client leaves non-daemon threads (schedulers, gRPC) behind: end the JVM explicitly.
        Runtime.getRuntime().halt(rc);
    }

    // ---------------------------------------------------------------- options

    private static final Set<String> FLAGS = Set.of("change-invisible-first");
    private static final Set<String> VALUED = Set.of(
        "endpoints", "topic", "count", "mode", "interval-ms", "prefix", "tag", "message-groups", "delay-ms",
        "group", "idle-seconds", "invisible-seconds", "seconds", "fail-tag", "retry-tag", "decisions", "check-answer");

    private static Map<String, String> parse(String[] argv) {
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                usage("unexpected argument " + a);
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (FLAGS.contains(name)) {
                if (value != null) {
                    usage("--" + name + " takes no value");
                }
                opts.put(name, "true");
            } else if (VALUED.contains(name)) {
                if (value == null) {
                    if (i + 1 >= argv.length) {
                        usage("--" + name + " needs a value");
                    }
                    value = argv[++i];
                }
                opts.put(name, value);
            } else {
                usage("unknown option --" + name);
            }
        }
        required(opts, "endpoints");
        required(opts, "topic");
        return opts;
    }

    private static String required(Map<String, String> opts, String name) {
        String v = opts.get(name);
        if (v == null || v.isEmpty()) {
            usage("--" + name + " is required");
        }
        return v;
    }

    private static int intOpt(Map<String, String> opts, String name, int def) {
        String v = opts.get(name);
        if (v == null) {
            return def;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            usage("--" + name + " wants an integer, not " + v);
            return def;
        }
    }

    private static void usage(String why) {
        System.err.println("driver: " + why);
        System.err.println("usage: driver produce|receive|push|transact --endpoints E --topic T [options]"
            + " (see tests/clients/README.md)");
        System.err.flush();
        Runtime.getRuntime().halt(2);
    }

    // ---------------------------------------------------------------- output

    private static synchronized void emit(Json line) {
        OUT.println(line.close());
        OUT.flush();
    }

    private static String describe(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    /** A JSON object written field by field, in order. */
    static final class Json {
        private final StringBuilder sb = new StringBuilder("{");

        static Json op(String op) {
            return new Json().str("op", op);
        }

        private Json key(String k) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            quote(sb, k);
            sb.append(':');
            return this;
        }

        Json str(String k, String v) {
            key(k);
            if (v == null) {
                sb.append("null");
            } else {
                quote(sb, v);
            }
            return this;
        }

        Json num(String k, long v) {
            key(k).sb.append(v);
            return this;
        }

        Json num(String k, Long v) {
            key(k).sb.append(v == null ? "null" : v.toString());
            return this;
        }

        Json dbl(String k, double v) {
            key(k).sb.append(String.format(java.util.Locale.ROOT, "%.3f", v));
            return this;
        }

        Json bool(String k, boolean v) {
            key(k).sb.append(v);
            return this;
        }

        Json strs(String k, Collection<String> vs) {
            key(k).sb.append('[');
            boolean first = true;
            for (String v : vs) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, v);
            }
            sb.append(']');
            return this;
        }

        String close() {
            return sb.toString() + "}";
        }

        private static void quote(StringBuilder sb, String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"':
                        sb.append("\\\"");
                        break;
                    case '\\':
                        sb.append("\\\\");
                        break;
                    case '\n':
                        sb.append("\\n");
                        break;
                    case '\r':
                        sb.append("\\r");
                        break;
                    case '\t':
                        sb.append("\\t");
                        break;
                    default:
                        if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                            sb.append(String.format("\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                }
            }
            sb.append('"');
        }
    }

    // ---------------------------------------------------------------- client

    private static ClientConfiguration configuration(Map<String, String> opts) {
        return ClientConfiguration.newBuilder()
            .setEndpoints(opts.get("endpoints"))
            .enableSsl(false)
            .setNamespace("")
            .build();
    }

    private static Map<String, FilterExpression> subscription(Map<String, String> opts) {
        return Collections.singletonMap(opts.get("topic"), new FilterExpression("*", FilterExpressionType.TAG));
    }

    private static String body(MessageView mv) {
        ByteBuffer b = mv.getBody().duplicate();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static Json view(String op, MessageView mv) {
        return Json.op(op)
            .str("id", mv.getMessageId().toString())
            .str("body", body(mv));
    }

    private static String orNull(Optional<String> o) {
        return o.orElse(null);
    }

    // ---------------------------------------------------------------- produce

    private static int produce(Map<String, String> opts) throws Exception {
        String topic = opts.get("topic");
        int count = intOpt(opts, "count", 10);
        String mode = opts.getOrDefault("mode", "sync");
        if (!mode.equals("sync") && !mode.equals("async")) {
            usage("--mode is sync or async");
        }
        int intervalMs = intOpt(opts, "interval-ms", 0);
        String prefix = opts.getOrDefault("prefix", "m");
        String tag = opts.get("tag");
        int groups = intOpt(opts, "message-groups", 0);
        long delayMs = intOpt(opts, "delay-ms", 0);

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        Producer producer;
        try {
            producer = provider.newProducerBuilder()
                .setClientConfiguration(configuration(opts))
                .setTopics(topic)
                .build();
        } catch (Exception e) {
            System.err.println("driver: the producer could not start: " + describe(e));
            return 1;
        }

        Semaphore inFlight = new Semaphore(ASYNC_IN_FLIGHT);
        CompletableFuture<?>[] pending = new CompletableFuture<?>[mode.equals("async") ? count : 0];
        for (int seq = 0; seq < count; seq++) {
            String text = prefix + "-" + seq;
            MessageBuilder b = provider.newMessageBuilder()
                .setTopic(topic)
                .setBody(text.getBytes(StandardCharsets.UTF_8))
                .setKeys(text);
            if (tag != null) {
                b.setTag(tag);
            }
            if (groups > 0) {
                b.setMessageGroup("g" + (seq % groups));
            }
            if (delayMs > 0) {
                b.setDeliveryTimestamp(System.currentTimeMillis() + delayMs);
            }
            Message message = b.build();
            final int s = seq;
            if (mode.equals("sync")) {
                long t0 = System.nanoTime();
                try {
                    SendReceipt r = producer.send(message);
                    emitSent(s, r, t0);
                } catch (Exception e) {
                    emitSendError(s, e);
                }
                if (intervalMs > 0) {
                    Thread.sleep(intervalMs);
                }
            } else {
                inFlight.acquire();
                long t0 = System.nanoTime();
                CompletableFuture<SendReceipt> f;
                try {
                    f = producer.sendAsync(message);
                } catch (Exception e) {
                    f = CompletableFuture.failedFuture(e);
                }
                pending[s] = f.handle((r, e) -> {
                    try {
                        if (e != null) {
                            emitSendError(s, e);
                        } else {
                            emitSent(s, r, t0);
                        }
                    } finally {
                        inFlight.release();
                    }
                    return null;
                });
            }
        }
        if (pending.length > 0) {
            CompletableFuture.allOf(pending).join();
        }
        emit(Json.op("done"));
        closeQuietly(producer);
        return 0;
    }

    private static void emitSent(int seq, SendReceipt r, long t0) {
        double ms = (System.nanoTime() - t0) / 1e6;
        emit(Json.op("send").num("seq", seq).bool("ok", true).str("id", r.getMessageId().toString())
            .dbl("ms", ms));
    }

    private static void emitSendError(int seq, Throwable e) {
        emit(Json.op("send").num("seq", seq).bool("ok", false).str("error", describe(e)));
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (Throwable t) {
            System.err.println("driver: close: " + describe(t));
        }
    }

    // ---------------------------------------------------------------- receive

    private static int receive(Map<String, String> opts) throws Exception {
        String group = required(opts, "group");
        int count = intOpt(opts, "count", -1);
        if (count < 0) {
            usage("--count is required");
        }
        long idleMs = intOpt(opts, "idle-seconds", 20) * 1000L;
        Duration invisible = Duration.ofSeconds(intOpt(opts, "invisible-seconds", 20));
        boolean changeFirst = opts.containsKey("change-invisible-first");

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        SimpleConsumer consumer;
        try {
            consumer = provider.newSimpleConsumerBuilder()
                .setClientConfiguration(configuration(opts))
                .setConsumerGroup(group)
                .setAwaitDuration(AWAIT)
                .setSubscriptionExpressions(subscription(opts))
                .build();
        } catch (Exception e) {
            System.err.println("driver: the simple consumer could not start: " + describe(e));
            return 1;
        }

        Set<String> acked = new HashSet<>();
        String changed = null; // id of the message whose invisible duration was changed
        long lastArrival = System.currentTimeMillis();
        while (acked.size() < count && System.currentTimeMillis() - lastArrival < idleMs) {
            List<MessageView> batch;
            try {
                batch = consumer.receive(RECEIVE_BATCH, invisible);
            } catch (Exception e) {
                emit(Json.op("receive_error").str("error", describe(e)));
                Thread.sleep(500);
                continue;
            }
            for (MessageView mv : batch) {
                long at = System.currentTimeMillis();
                lastArrival = at;
                String id = mv.getMessageId().toString();
                emit(view("receive", mv)
                    .strs("keys", mv.getKeys())
                    .str("tag", orNull(mv.getTag()))
                    .str("message_group", orNull(mv.getMessageGroup()))
                    .num("attempt", mv.getDeliveryAttempt())
                    .num("delivery_ts", mv.getDeliveryTimestamp().orElse(null))
                    .num("at", at));
                if (changeFirst && changed == null) {
                    changed = id;
                    try {
                        consumer.changeInvisibleDuration(mv, Duration.ofSeconds(1));
                        emit(Json.op("change_invisible").str("id", id).bool("ok", true));
                    } catch (Exception e) {
                        emit(Json.op("change_invisible").str("id", id).bool("ok", false).str("error", describe(e)));
                    }
                    continue;
                }
                try {
                    consumer.ack(mv);
                    acked.add(id);
                    emit(Json.op("ack").str("id", id).bool("ok", true));
                } catch (Exception e) {
                    emit(Json.op("ack").str("id", id).bool("ok", false).str("error", describe(e)));
                }
            }
        }
        emit(Json.op("done"));
        closeQuietly(consumer);
        return 0;
    }

    // ---------------------------------------------------------------- push

    private static int push(Map<String, String> opts) throws Exception {
        String group = required(opts, "group");
        long seconds = intOpt(opts, "seconds", 20);
        String failTag = opts.get("fail-tag");
        String retryTag = opts.get("retry-tag");

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        PushConsumer consumer;
        try {
            consumer = provider.newPushConsumerBuilder()
                .setClientConfiguration(configuration(opts))
                .setConsumerGroup(group)
                .setSubscriptionExpressions(subscription(opts))
                .setMessageListener(mv -> {
                    long at = System.currentTimeMillis();
                    String tag = orNull(mv.getTag());
                    int attempt = mv.getDeliveryAttempt();
                    ConsumeResult result = ConsumeResult.SUCCESS;
                    if (tag != null && tag.equals(failTag)) {
                        result = ConsumeResult.FAILURE;
                    } else if (tag != null && tag.equals(retryTag) && attempt <= 1) {
                        result = ConsumeResult.FAILURE;
                    }
                    emit(view("consume", mv)
                        .str("tag", tag)
                        .str("message_group", orNull(mv.getMessageGroup()))
                        .num("attempt", attempt)
                        .num("at", at)
                        .str("result", result.name()));
                    return result;
                })
                .build();
        } catch (Exception e) {
            System.err.println("driver: the push consumer could not start: " + describe(e));
            return 1;
        }
        Thread.sleep(seconds * 1000L);
        closeQuietly(consumer);
        emit(Json.op("done"));
        return 0;
    }

    // ---------------------------------------------------------------- transact

    private static int transact(Map<String, String> opts) throws Exception {
        String topic = opts.get("topic");
        int count = intOpt(opts, "count", 1);
        String prefix = opts.getOrDefault("prefix", "t");
        List<String> decisions = List.of(opts.getOrDefault("decisions", "commit").split(","));
        for (String d : decisions) {
            if (!d.equals("commit") && !d.equals("rollback") && !d.equals("none")) {
                usage("--decisions: " + d + " is not commit, rollback or none");
            }
        }
        String answerName = opts.getOrDefault("check-answer", "commit");
        TransactionResolution answer;
        switch (answerName) {
            case "commit":
                answer = TransactionResolution.COMMIT;
                break;
            case "rollback":
                answer = TransactionResolution.ROLLBACK;
                break;
            case "unknown":
                answer = TransactionResolution.UNKNOWN;
                break;
            default:
                usage("--check-answer is commit, rollback or unknown");
                return 2;
        }
        long seconds = intOpt(opts, "seconds", 0);

        ClientServiceProvider provider = ClientServiceProvider.loadService();
        Producer producer;
        try {
            producer = provider.newProducerBuilder()
                .setClientConfiguration(configuration(opts))
                .setTopics(topic)
                .setTransactionChecker(mv -> {
                    emit(view("check", mv).str("answer", answerName).num("at", System.currentTimeMillis()));
                    return answer;
                })
                .build();
        } catch (Exception e) {
            System.err.println("driver: the producer could not start: " + describe(e));
            return 1;
        }

        for (int seq = 0; seq < count; seq++) {
            String decision = decisions.get(seq % decisions.size());
            String text = prefix + "-" + seq;
            Message message = provider.newMessageBuilder()
                .setTopic(topic)
                .setBody(text.getBytes(StandardCharsets.UTF_8))
                .setKeys(text)
                .build();
            Transaction transaction;
            SendReceipt r;
            try {
                transaction = producer.beginTransaction();
                r = producer.send(message, transaction);
            } catch (Exception e) {
                emit(Json.op("send").num("seq", seq).bool("ok", false).str("error", describe(e))
                    .str("decision", decision));
                continue;
            }
            emit(Json.op("send").num("seq", seq).bool("ok", true).str("id", r.getMessageId().toString())
                .str("decision", decision));
            if (decision.equals("none")) {
                continue;
            }
            try {
                if (decision.equals("commit")) {
                    transaction.commit();
                } else {
                    transaction.rollback();
                }
                emit(Json.op("end").num("seq", seq).str("decision", decision).bool("ok", true));
            } catch (Exception e) {
                emit(Json.op("end").num("seq", seq).str("decision", decision).bool("ok", false)
                    .str("error", describe(e)));
            }
        }
        Thread.sleep(seconds * 1000L);
        closeQuietly(producer);
        emit(Json.op("done"));
        return 0;
    }
}
