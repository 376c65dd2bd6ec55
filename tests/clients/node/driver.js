'use strict';
// Driver for Apache RocketMQ's official Node.js client (npm `rocketmq-client-nodejs`, pinned in package.json):
// `driver produce|receive|push|transact --endpoints E --topic T [options]`, as tests/clients/README.md describes.
// Every result is one JSON line on stdout; the client's own logging never goes to stdout.

// The client's default logger is an egg-logger whose console transport is off unless EGG_LOG is set, and then
// it prints INFO/WARN lines to stdout: keep it off before the client is loaded.
process.env.EGG_LOG = 'NONE';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');
const { performance } = require('node:perf_hooks');

const CLIENT = 'rocketmq-client-nodejs';
const CLIENT_VERSION = require(`${CLIENT}/package.json`).version;
const { Producer, SimpleConsumer, PushConsumer, ConsumeResult } = require(CLIENT);
// The client's TransactionChecker answers a TransactionResolution, which its index does not re-export: the
// client's own generated protocol module (shipped in the package, `proto/`) has it.
const { TransactionResolution } = require(`${CLIENT}/proto/apache/rocketmq/v2/definition_pb`);

const STARTUP_TIMEOUT_MS = 30000; // BaseClient.startup() awaits the first settings with no deadline of its own
const SHUTDOWN_TIMEOUT_MS = 30000; // a PushConsumer waits for its long-polling receive (server-set, 20 s) to end
const MAX_IN_FLIGHT = 16;

// ---------------------------------------------------------------- output

function emit(obj) {
  process.stdout.write(`${JSON.stringify(obj)}\n`);
}

function finish(code) {
  // process.exit only once stdout has taken the last line; the client may leave timers and channels open
  // (the consume services' own default loggers, for one, are never closed).
  process.stdout.write('', () => process.exit(code));
}

function errorName(err) {
  const name = err.name && err.name !== 'Error' ? err.name : err.constructor && err.constructor.name;
  if ((!name || name === 'Error') && typeof err.code === 'number' && err.details !== undefined) {
    return 'grpc'; // a grpc-js ServiceError: its message starts with "<code> <NAME>: "
  }
  return name || 'Error';
}

// "<class or code>: <message>", followed by the causes the message does not repeat already (the client wraps
// a startup failure twice, the gRPC status being the innermost cause).
function errorText(err) {
  if (!(err instanceof Error)) return `Error: ${String(err)}`;
  let text = `${errorName(err)}: ${err.message}`;
  for (let cause = err.cause, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (!text.includes(cause.message)) text += ` (cause: ${errorName(cause)}: ${cause.message})`;
  }
  return text.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------- client logging
// The clients get a logger writing to a file in the system temp directory ($RMQ_DRIVER_LOG: another file, or
// "stderr"). The consume services of the push consumer ignore it and use the client's default logger,
// ~/logs/rocketmq/rocketmq_client_nodejs.log (never stdout).

class DriverLogger {
  constructor() {
    const dest = process.env.RMQ_DRIVER_LOG;
    if (dest === 'stderr') {
      this.fd = 2;
    } else {
      const file = dest || path.join(os.tmpdir(), 'rocketmq-client-nodejs', 'driver.log');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      this.fd = fs.openSync(file, 'a');
    }
    this.debugOn = !!process.env.RMQ_DRIVER_DEBUG;
  }

  #write(level, args) {
    try {
      fs.writeSync(this.fd, `${new Date().toISOString()} ${level} [${process.pid}] ${util.format(...args)}\n`);
    } catch (_e) {
      // logging must never break the driver
    }
  }

  info(...args) { this.#write('INFO', args); }
  warn(...args) { this.#write('WARN', args); }
  error(...args) { this.#write('ERROR', args); }
  debug(...args) { if (this.debugOn) this.#write('DEBUG', args); }
  close() { /* shared by every client of the process; the fd closes with it */ }
}

const logger = new DriverLogger();

process.on('unhandledRejection', err => {
  // Seen from inside the client; reported, not fatal.
  process.stderr.write(`unhandled rejection: ${errorText(err)}\n`);
  logger.error('unhandled rejection: %s', err && err.stack || err);
});

// ---------------------------------------------------------------- command line

const USAGE = 'usage: driver produce|receive|push|transact --endpoints E --topic T [options]'
  + ' (see tests/clients/README.md)';

const OPTIONS = {
  produce: {
    count: ['int', 10], mode: ['str', 'sync'], 'interval-ms': ['int', 0], prefix: ['str', 'm'],
    tag: ['str', null], 'message-groups': ['int', 0], 'delay-ms': ['int', 0],
  },
  receive: {
    group: ['str', undefined], count: ['int', undefined], 'idle-seconds': ['num', 20],
    'invisible-seconds': ['num', 20], 'change-invisible-first': ['flag', false],
  },
  push: {
    group: ['str', undefined], seconds: ['num', 20], 'fail-tag': ['str', null], 'retry-tag': ['str', null],
  },
  transact: {
    count: ['int', 1], prefix: ['str', 't'], decisions: ['str', 'commit'], 'check-answer': ['str', 'commit'],
    seconds: ['num', 0],
  },
};

const DECISIONS = ['commit', 'rollback', 'none'];
const ANSWERS = {
  commit: TransactionResolution.COMMIT,
  rollback: TransactionResolution.ROLLBACK,
  unknown: TransactionResolution.TRANSACTION_RESOLUTION_UNSPECIFIED,
};

function usageError(msg) {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const command = argv[0];
  if (!OPTIONS[command]) usageError(`unknown command: ${command === undefined ? '(none)' : command}`);
  const spec = { endpoints: ['str', undefined], topic: ['str', undefined], ...OPTIONS[command] };
  const opts = {};
  for (const [name, [, dflt]] of Object.entries(spec)) opts[name] = dflt;
  for (let i = 1; i < argv.length; i++) {
    let arg = argv[i];
    if (!arg.startsWith('--')) usageError(`unexpected argument: ${arg}`);
    arg = arg.slice(2);
    let value;
    const eq = arg.indexOf('=');
    if (eq >= 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (!spec[arg]) usageError(`unknown option for ${command}: --${arg}`);
    const type = spec[arg][0];
    if (type === 'flag') {
      if (value !== undefined) usageError(`--${arg} takes no value`);
      opts[arg] = true;
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) usageError(`--${arg} needs a value`);
      value = argv[++i];
    }
    if (type === 'int' || type === 'num') {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || (type === 'int' && !Number.isInteger(n))) {
        usageError(`--${arg}: not a number: ${value}`);
      }
      opts[arg] = n;
    } else {
      opts[arg] = value;
    }
  }
  for (const [name, v] of Object.entries(opts)) {
    if (v === undefined) usageError(`${command}: --${name} is required`);
  }
  if (command === 'produce' && opts.mode !== 'sync' && opts.mode !== 'async') {
    usageError(`--mode must be sync or async, not ${opts.mode}`);
  }
  if (command === 'transact') {
    const bad = opts.decisions.split(',').filter(d => !DECISIONS.includes(d));
    if (bad.length > 0) usageError(`--decisions: ${bad.join(', ')} is not commit, rollback or none`);
    if (!Object.hasOwn(ANSWERS, opts['check-answer'])) {
      usageError(`--check-answer must be commit, rollback or unknown, not ${opts['check-answer']}`);
    }
  }
  return { command, opts };
}

// ---------------------------------------------------------------- helpers

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function baseOptions(opts) {
  return { endpoints: opts.endpoints, namespace: '', sslEnabled: false, logger };
}

async function start(client, what) {
  try {
    await withTimeout(client.startup(), STARTUP_TIMEOUT_MS, `${what}.startup()`);
  } catch (err) {
    process.stderr.write(`${what} could not start: ${errorText(err)}\n`);
    logger.error('%s could not start: %s', what, err && err.stack || err);
    process.exit(1);
  }
}

async function stop(client, what) {
  try {
    await withTimeout(client.shutdown(), SHUTDOWN_TIMEOUT_MS, `${what}.shutdown()`);
  } catch (err) {
    process.stderr.write(`${what} shutdown: ${errorText(err)}\n`);
  }
}

const orNull = v => (v === undefined || v === null || v === '' ? null : v);

function view(mv) {
  const ts = mv.deliveryTimestamp instanceof Date ? mv.deliveryTimestamp.getTime() : null;
  return {
    id: mv.messageId,
    body: Buffer.from(mv.body).toString('utf8'),
    keys: Array.from(mv.keys || []),
    tag: orNull(mv.tag),
    message_group: orNull(mv.messageGroup),
    attempt: mv.deliveryAttempt === undefined ? null : mv.deliveryAttempt,
    delivery_ts: ts,
  };
}

// ---------------------------------------------------------------- produce

async function produce(opts) {
  const producer = new Producer({ ...baseOptions(opts), topics: [opts.topic] });
  await start(producer, 'Producer');

  const sendOne = async seq => {
    const text = `${opts.prefix}-${seq}`;
    const message = { topic: opts.topic, body: Buffer.from(text, 'utf8'), keys: [text] };
    if (opts.tag !== null) message.tag = opts.tag;
    if (opts['message-groups'] > 0) message.messageGroup = `g${seq % opts['message-groups']}`;
    if (opts['delay-ms'] > 0) message.deliveryTimestamp = new Date(Date.now() + opts['delay-ms']);
    const t0 = performance.now();
    try {
      const receipt = await producer.send(message);
      const ms = Math.round((performance.now() - t0) * 100) / 100;
      emit({ op: 'send', seq, ok: true, id: receipt.messageId, ms });
    } catch (err) {
      emit({ op: 'send', seq, ok: false, error: errorText(err) });
    }
  };

  if (opts.mode === 'sync') {
    for (let seq = 0; seq < opts.count; seq++) {
      await sendOne(seq);
      if (opts['interval-ms'] > 0) await sleep(opts['interval-ms']);
    }
  } else {
    // producer.send() is the client's asynchronous send (a Promise); keep at most 16 of them in flight.
    const inFlight = new Set();
    for (let seq = 0; seq < opts.count; seq++) {
      const p = sendOne(seq).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  }

  await stop(producer, 'Producer');
  emit({ op: 'done' });
  finish(0);
}

// ---------------------------------------------------------------- receive

async function receive(opts) {
  const consumer = new SimpleConsumer({
    ...baseOptions(opts),
    consumerGroup: opts.group,
    subscriptions: new Map([[opts.topic, '*']]),
    awaitDuration: 5000,
  });
  await start(consumer, 'SimpleConsumer');

  const invisibleMs = Math.round(opts['invisible-seconds'] * 1000);
  const idleMs = opts['idle-seconds'] * 1000;
  const acked = new Set();
  let heldBack = opts['change-invisible-first'] ? undefined : null; // id of the first message, not acked at first
  let lastArrival = Date.now();

  while (acked.size < opts.count && Date.now() - lastArrival < idleMs) {
    let messages;
    try {
      messages = await consumer.receive(16, invisibleMs);
    } catch (err) {
      emit({ op: 'receive_error', error: errorText(err) });
      await sleep(Math.min(1000, Math.max(0, idleMs - (Date.now() - lastArrival))));
      continue;
    }
    if (messages.length === 0) continue;
    const at = Date.now();
    lastArrival = at;
    for (const mv of messages) {
      const v = view(mv);
      emit({ op: 'receive', ...v, at });
      if (heldBack === undefined) {
        heldBack = v.id;
        try {
          await consumer.changeInvisibleDuration(mv, 1000);
          emit({ op: 'change_invisible', id: v.id, ok: true });
        } catch (err) {
          emit({ op: 'change_invisible', id: v.id, ok: false, error: errorText(err) });
        }
        continue;
      }
      try {
        await consumer.ack(mv);
        acked.add(v.id);
        emit({ op: 'ack', id: v.id, ok: true });
      } catch (err) {
        emit({ op: 'ack', id: v.id, ok: false, error: errorText(err) });
      }
    }
  }

  await stop(consumer, 'SimpleConsumer');
  emit({ op: 'done' });
  finish(0);
}

// ---------------------------------------------------------------- push

async function push(opts) {
  const failedOnce = new Set();
  const listener = {
    async consume(mv) {
      const v = view(mv);
      let result = ConsumeResult.SUCCESS;
      if (opts['fail-tag'] !== null && v.tag === opts['fail-tag']) {
        result = ConsumeResult.FAILURE;
      } else if (opts['retry-tag'] !== null && v.tag === opts['retry-tag']
                 && (v.attempt === null || v.attempt <= 1) && !failedOnce.has(v.id)) {
        failedOnce.add(v.id);
        result = ConsumeResult.FAILURE;
      }
      emit({
        op: 'consume', id: v.id, body: v.body, tag: v.tag, message_group: v.message_group,
        attempt: v.attempt, at: Date.now(), result: result.toString(),
      });
      return result;
    },
  };
  const consumer = new PushConsumer({
    ...baseOptions(opts),
    consumerGroup: opts.group,
    subscriptions: new Map([[opts.topic, '*']]),
    messageListener: listener,
  });
  await start(consumer, 'PushConsumer');
  await sleep(opts.seconds * 1000);
  await stop(consumer, 'PushConsumer');
  emit({ op: 'done' });
  finish(0);
}

// ---------------------------------------------------------------- transact

async function transact(opts) {
  const answer = opts['check-answer'];
  const checker = {
    async check(mv) {
      const v = view(mv);
      emit({ op: 'check', id: v.id, body: v.body, answer, at: Date.now() });
      return ANSWERS[answer];
    },
  };
  const producer = new Producer({ ...baseOptions(opts), topics: [opts.topic], checker });
  await start(producer, 'Producer');

  const decisions = opts.decisions.split(',');
  for (let seq = 0; seq < opts.count; seq++) {
    const decision = decisions[seq % decisions.length];
    const text = `${opts.prefix}-${seq}`;
    const message = { topic: opts.topic, body: Buffer.from(text, 'utf8'), keys: [text] };
    let transaction;
    try {
      transaction = producer.beginTransaction();
      const receipt = await producer.send(message, transaction);
      emit({ op: 'send', seq, ok: true, id: receipt.messageId, decision });
    } catch (err) {
      emit({ op: 'send', seq, ok: false, error: errorText(err), decision });
      continue;
    }
    if (decision === 'none') continue;
    try {
      if (decision === 'commit') {
        await transaction.commit();
      } else {
        await transaction.rollback();
      }
      emit({ op: 'end', seq, decision, ok: true });
    } catch (err) {
      emit({ op: 'end', seq, decision, ok: false, error: errorText(err) });
    }
  }

  await sleep(opts.seconds * 1000);
  await stop(producer, 'Producer');
  emit({ op: 'done' });
  finish(0);
}

// ---------------------------------------------------------------- main

async function main() {
  const { command, opts } = parseArgs(process.argv.slice(2));
  logger.info('driver %s (%s %s) %j', command, CLIENT, CLIENT_VERSION, opts);
  if (command === 'produce') return produce(opts);
  if (command === 'receive') return receive(opts);
  if (command === 'transact') return transact(opts);
  return push(opts);
}

main().catch(err => {
  process.stderr.write(`driver failed: ${err && err.stack || err}\n`);
  process.exit(1);
});
