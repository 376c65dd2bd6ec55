//! The Rust driver: Apache's official RocketMQ 5 Rust client (crate `rocketmq`, pinned in Cargo.toml), driven
//! as tests/clients/README.md says. Only JSON lines go to stdout; the client logs to stderr (slog-term).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::process::exit;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rocketmq::conf::{ClientOption, ProducerOption, SimpleConsumerOption};
use rocketmq::error::ClientError;
use rocketmq::model::common::{FilterExpression, FilterType};
use rocketmq::model::message::MessageBuilder;
use rocketmq::model::transaction::{Transaction, TransactionResolution};
use rocketmq::{Producer, SimpleConsumer};
use serde_json::{json, Value};
use tokio::task::JoinSet;

const CLIENT: &str = "rocketmq (Rust crate)";
const VERSION: &str = "5.0.0";
const MAX_IN_FLIGHT: usize = 16;
const RECEIVE_BATCH: i32 = 16;
const AWAIT_DURATION: Duration = Duration::from_secs(5);

fn emit(line: Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_millis()
}

fn usage(msg: &str) -> ! {
    eprintln!("driver: {msg}");
    eprintln!("usage: driver produce|receive|push|transact --endpoints E --topic T [options]");
    exit(2)
}

fn unsupported(what: &str) -> ! {
    eprintln!("unsupported: {CLIENT} {VERSION} has no {what}");
    exit(3)
}

/// `<server code or error kind>: <the client's message>`.
fn describe(e: &ClientError) -> String {
    let code = e
        .context()
        .iter()
        .find(|(k, _)| *k == "code")
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| format!("{:?}", e.kind()));
    format!("{code}: {e}")
}

struct Args {
    values: HashMap<String, String>,
    flags: HashSet<String>,
}

impl Args {
    fn parse(argv: &[String]) -> Args {
        const FLAGS: &[&str] = &["change-invisible-first"];
        let mut values = HashMap::new();
        let mut flags = HashSet::new();
        let mut it = argv.iter();
        while let Some(arg) = it.next() {
            let Some(name) = arg.strip_prefix("--") else { usage(&format!("unexpected argument {arg:?}")) };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (name.to_string(), None),
            };
            if FLAGS.contains(&name.as_str()) {
                flags.insert(name);
                continue;
            }
            let value = match inline {
                Some(v) => v,
                None => it.next().cloned().unwrap_or_else(|| usage(&format!("--{name} needs a value"))),
            };
            values.insert(name, value);
        }
        Args { values, flags }
    }

    fn str(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned()
    }

    fn required(&self, name: &str) -> String {
        self.str(name).unwrap_or_else(|| usage(&format!("--{name} is required")))
    }

    fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.values.get(name) {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| usage(&format!("--{name}: not a number: {v:?}"))),
        }
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.contains(name)
    }
}

fn client_option(args: &Args) -> ClientOption {
    let mut option = ClientOption::default();
    // The crate separates several access points with ',' (model/common.rs ENDPOINT_SEPARATOR).
    option.set_access_url(args.required("endpoints").replace(';', ","));
    option.set_enable_tls(false);
    option
}

async fn produce(args: Args) {
    let topic = args.required("topic");
    let count: u64 = args.num("count", 10);
    let mode = args.str("mode").unwrap_or_else(|| "sync".into());
    if mode != "sync" && mode != "async" {
        usage(&format!("--mode must be sync or async, not {mode:?}"));
    }
    let interval_ms: u64 = args.num("interval-ms", 0);
    let prefix = args.str("prefix").unwrap_or_else(|| "m".into());
    let tag = args.str("tag");
    let groups: u64 = args.num("message-groups", 0);
    let delay_ms: u64 = args.num("delay-ms", 0);

    let mut option = ProducerOption::default();
    option.set_topics(vec![topic.clone()]);
    let mut producer = match Producer::new(option, client_option(&args)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("producer could not be created: {e}");
            exit(1)
        }
    };
    if let Err(e) = producer.start().await {
        eprintln!("producer could not start: {e}");
        exit(1)
    }
    let producer = Arc::new(producer);

    let build = |seq: u64| {
        let text = format!("{prefix}-{seq}");
        let mut builder = MessageBuilder::builder()
            .set_topic(topic.clone())
            .set_body(text.clone().into_bytes())
            .set_keys(vec![text]);
        if let Some(tag) = &tag {
            builder = builder.set_tag(tag.clone());
        }
        if groups > 0 {
            builder = builder.set_message_group(format!("g{}", seq % groups));
        }
        if delay_ms > 0 {
            // The crate's delivery timestamp is whole seconds (model/message.rs set_delivery_timestamp): round up
            // so that the message is never due before now + D ms.
            let due_ms = now_ms() as u64 + delay_ms;
            builder = builder.set_delivery_timestamp(due_ms.div_ceil(1000) as i64);
        }
        builder.build()
    };

    let report = |seq: u64, result: Result<String, String>, ms: f64| match result {
        Ok(id) => emit(json!({"op": "send", "seq": seq, "ok": true, "id": id,
                              "ms": (ms * 1000.0).round() / 1000.0})),
        Err(error) => emit(json!({"op": "send", "seq": seq, "ok": false, "error": error})),
    };

    if mode == "sync" {
        for seq in 0..count {
            let started = Instant::now();
            let result = match build(seq) {
                Ok(message) => producer.send(message).await.map(|r| r.message_id().to_string()),
                Err(e) => Err(e),
            };
            report(seq, result.map_err(|e| describe(&e)), started.elapsed().as_secs_f64() * 1000.0);
            if interval_ms > 0 {
                tokio::time::sleep(Duration::from_millis(interval_ms)).await;
            }
        }
    } else {
        let mut in_flight = JoinSet::new();
        for seq in 0..count {
            while in_flight.len() >= MAX_IN_FLIGHT {
                if let Some(Ok((seq, result, ms))) = in_flight.join_next().await {
                    report(seq, result, ms);
                }
            }
            let message = build(seq);
            let producer = Arc::clone(&producer);
            in_flight.spawn(async move {
                let started = Instant::now();
                let result = match message {
                    Ok(message) => producer.send(message).await.map(|r| r.message_id().to_string()),
                    Err(e) => Err(e),
                };
                (seq, result.map_err(|e| describe(&e)), started.elapsed().as_secs_f64() * 1000.0)
            });
        }
        while let Some(joined) = in_flight.join_next().await {
            match joined {
                Ok((seq, result, ms)) => report(seq, result, ms),
                Err(e) => eprintln!("a send task failed: {e}"),
            }
        }
    }
    emit(json!({"op": "done"}));
    if let Ok(producer) = Arc::try_unwrap(producer) {
        if let Err(e) = producer.shutdown().await {
            eprintln!("producer shutdown: {e}");
        }
    }
}

async fn receive(args: Args) {
    if args.flag("change-invisible-first") {
        unsupported("SimpleConsumer change_invisible_duration");
    }
    let topic = args.required("topic");
    let group = args.required("group");
    let count: usize = args.str("count").map(|_| args.num("count", 0)).unwrap_or_else(|| usage("--count is required"));
    let idle = Duration::from_secs_f64(args.num("idle-seconds", 20.0));
    let invisible = Duration::from_secs_f64(args.num("invisible-seconds", 20.0));

    let mut option = SimpleConsumerOption::default();
    option.set_consumer_group(group);
    option.set_topics(vec![topic.clone()]);
    let mut client = client_option(&args);
    client.set_long_polling_timeout(AWAIT_DURATION);
    let mut consumer = match SimpleConsumer::new(option, client) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("simple consumer could not be created: {e}");
            exit(1)
        }
    };
    if let Err(e) = consumer.start().await {
        eprintln!("simple consumer could not start: {e}");
        exit(1)
    }

    let filter = FilterExpression::new(FilterType::Tag, "*");
    let mut acked: HashSet<String> = HashSet::new();
    let mut last_arrival = Instant::now();
    while acked.len() < count {
        match consumer.receive_with(&topic, &filter, RECEIVE_BATCH, invisible).await {
            Err(e) => {
                emit(json!({"op": "receive_error", "error": describe(&e)}));
                // the crate returns at once on a refused receive: do not spin on the server
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(messages) => {
                if !messages.is_empty() {
                    last_arrival = Instant::now();
                }
                for message in messages {
                    let at = now_ms();
                    emit(json!({
                        "op": "receive",
                        "id": message.message_id(),
                        "body": String::from_utf8_lossy(message.body()),
                        "keys": message.keys(),
                        "tag": message.tag(),
                        "message_group": message.message_group(),
                        "attempt": message.delivery_attempt(),
                        // whole seconds in the crate (model/message.rs from_pb_message)
                        "delivery_ts": message.delivery_timestamp().map(|s| s * 1000),
                        "at": at,
                    }));
                    match consumer.ack(&message).await {
                        Ok(()) => {
                            acked.insert(message.message_id().to_string());
                            emit(json!({"op": "ack", "id": message.message_id(), "ok": true}));
                        }
                        Err(e) => emit(json!({"op": "ack", "id": message.message_id(), "ok": false,
                                              "error": describe(&e)})),
                    }
                }
            }
        }
        if acked.len() < count && last_arrival.elapsed() >= idle {
            break;
        }
    }
    emit(json!({"op": "done"}));
    if let Err(e) = consumer.shutdown().await {
        eprintln!("simple consumer shutdown: {e}");
    }
}

fn resolution(answer: &str) -> TransactionResolution {
    match answer {
        "commit" => TransactionResolution::COMMIT,
        "rollback" => TransactionResolution::ROLLBACK,
        "unknown" => TransactionResolution::UNKNOWN,
        other => usage(&format!("--check-answer must be commit, rollback or unknown, not {other:?}")),
    }
}

async fn transact(args: Args) {
    let topic = args.required("topic");
    let count: u64 = args.num("count", 1);
    let prefix = args.str("prefix").unwrap_or_else(|| "t".into());
    let decisions: Vec<String> =
        args.str("decisions").unwrap_or_else(|| "commit".into()).split(',').map(str::to_string).collect();
    if let Some(bad) = decisions.iter().find(|d| !["commit", "rollback", "none"].contains(&d.as_str())) {
        usage(&format!("--decisions: {bad:?} is not commit, rollback or none"));
    }
    let answer = args.str("check-answer").unwrap_or_else(|| "commit".into());
    resolution(&answer); // checked before the producer starts
    let seconds: f64 = args.num("seconds", 0.0);

    let mut option = ProducerOption::default();
    option.set_topics(vec![topic.clone()]);
    // The crate's checker is a plain closure (transaction id, message view), called from its telemetry task.
    let checker = Box::new(move |_transaction_id: String, message: rocketmq::model::message::MessageView| {
        emit(json!({
            "op": "check",
            "id": message.message_id(),
            "body": String::from_utf8_lossy(message.body()),
            "answer": answer,
            "at": now_ms(),
        }));
        resolution(&answer)
    });
    let mut producer = match Producer::new_transaction_producer(option, client_option(&args), checker) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("producer could not be created: {e}");
            exit(1)
        }
    };
    if let Err(e) = producer.start().await {
        eprintln!("producer could not start: {e}");
        exit(1)
    }

    for seq in 0..count {
        let decision = decisions[(seq % decisions.len() as u64) as usize].as_str();
        let text = format!("{prefix}-{seq}");
        let sent = match MessageBuilder::transaction_message_builder(topic.clone(), text.clone().into_bytes())
            .set_keys(vec![text])
            .build()
        {
            Ok(message) => producer.send_transaction_message(message).await,
            Err(e) => Err(e),
        };
        let transaction = match sent {
            Ok(transaction) => transaction,
            Err(e) => {
                emit(json!({"op": "send", "seq": seq, "ok": false, "error": describe(&e), "decision": decision}));
                continue;
            }
        };
        emit(json!({"op": "send", "seq": seq, "ok": true, "id": transaction.message_id(), "decision": decision}));
        let ended = match decision {
            "commit" => transaction.commit().await,
            "rollback" => transaction.rollback().await,
            _ => continue,
        };
        match ended {
            Ok(()) => emit(json!({"op": "end", "seq": seq, "decision": decision, "ok": true})),
            Err(e) => emit(json!({"op": "end", "seq": seq, "decision": decision, "ok": false, "error": describe(&e)})),
        }
    }
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    if let Err(e) = producer.shutdown().await {
        eprintln!("producer shutdown: {e}");
    }
    emit(json!({"op": "done"}));
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = argv.first().cloned() else { usage("no command") };
    let args = Args::parse(&argv[1..]);
    if command == "push" {
        unsupported("PushConsumer");
    }
    let runtime = tokio::runtime::Runtime::new().unwrap_or_else(|e| {
        eprintln!("tokio runtime: {e}");
        exit(1)
    });
    match command.as_str() {
        "produce" => runtime.block_on(produce(args)),
        "receive" => runtime.block_on(receive(args)),
        "transact" => runtime.block_on(transact(args)),
        other => usage(&format!("unknown command {other:?}")),
    }
    // Do not wait for the client's background tasks (heartbeat, telemetry streams).
    runtime.shutdown_timeout(Duration::from_secs(1));
    exit(0)
}
