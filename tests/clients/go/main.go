// The Go driver: runs one scenario step (produce, receive, push, transact) with the official RocketMQ 5 Go client
// (github.com/apache/rocketmq-clients/golang/v5, pinned in go.mod) and reports what the client did as JSON
// lines on stdout. The contract is tests/clients/README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	rmq_client "github.com/apache/rocketmq-clients/golang/v5"
	"github.com/apache/rocketmq-clients/golang/v5/credentials"
	v2 "github.com/apache/rocketmq-clients/golang/v5/protocol/v2"
	"google.golang.org/grpc/status"
)

const clientModule = "github.com/apache/rocketmq-clients/golang/v5"

// ---- output -------------------------------------------------------------------------------------

var outMu sync.Mutex

// emit writes one JSON line to stdout under a mutex; os.Stdout is unbuffered, so the line is out at once.
func emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "driver: cannot encode %#v: %v\n", v, err)
		return
	}
	b = append(b, '\n')
	outMu.Lock()
	defer outMu.Unlock()
	_, _ = os.Stdout.Write(b)
}

func nowMs() int64 { return time.Now().UnixMilli() }

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(code)
}

// errString renders an error as "<class or code>: <message>".
func errString(err error) string {
	var rpc *rmq_client.ErrRpcStatus
	if errors.As(err, &rpc) {
		return fmt.Sprintf("%s: %s", v2.Code(rpc.GetCode()).String(), rpc.GetMessage())
	}
	if st, ok := status.FromError(err); ok && st != nil {
		return fmt.Sprintf("grpc.%s: %s", st.Code().String(), st.Message())
	}
	return fmt.Sprintf("%s: %s", strings.TrimPrefix(fmt.Sprintf("%T", err), "*"), err.Error())
}

func clientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == clientModule {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

// ---- client setup -------------------------------------------------------------------------------

// setupClient keeps the client's zap logging off stdout (a file in the system temp directory unless the
// caller chose a log root) and turns TLS off, before any client is made.
func setupClient() {
	if os.Getenv("rocketmq.client.logRoot") == "" {
		_ = os.Setenv("rocketmq.client.logRoot", filepath.Join(os.TempDir(), "rocketmq-go-driver"))
	}
	// "true" would send the client's log to stdout (log.go, InitLogger).
	_ = os.Setenv("mq.consoleAppender.enabled", "false")
	rmq_client.ResetLogger()
	rmq_client.EnableSsl = false
}

func config(endpoints, group string) *rmq_client.Config {
	return &rmq_client.Config{
		Endpoint:      endpoints,
		ConsumerGroup: group,
		Credentials:   &credentials.SessionCredentials{},
	}
}

// stopBounded shuts a client down, waiting at most 10 s so that a hanging shutdown cannot keep the driver.
func stopBounded(stop func() error) {
	done := make(chan struct{})
	go func() {
		if err := stop(); err != nil {
			fmt.Fprintf(os.Stderr, "driver: shutdown: %v\n", err)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		fmt.Fprintln(os.Stderr, "driver: shutdown did not finish within 10 s")
	}
}

// ---- produce ------------------------------------------------------------------------------------

type sendLine struct {
	Op    string   `json:"op"`
	Seq   int      `json:"seq"`
	OK    bool     `json:"ok"`
	ID    *string  `json:"id,omitempty"`
	Ms    *float64 `json:"ms,omitempty"`
	Error *string  `json:"error,omitempty"`
}

func sendResult(seq int, start time.Time, receipts []*rmq_client.SendReceipt, err error) {
	if err == nil && len(receipts) == 0 {
		err = errors.New("the client returned no send receipt")
	}
	if err != nil {
		e := errString(err)
		emit(sendLine{Op: "send", Seq: seq, OK: false, Error: &e})
		return
	}
	ms := float64(time.Since(start).Microseconds()) / 1000.0
	id := receipts[0].MessageID
	emit(sendLine{Op: "send", Seq: seq, OK: true, ID: &id, Ms: &ms})
}

func produce(args []string) {
	fs := flag.NewFlagSet("produce", flag.ExitOnError)
	endpoints := fs.String("endpoints", "", "access point(s), host:port[;host:port]")
	topic := fs.String("topic", "", "topic")
	count := fs.Int("count", 10, "messages to send")
	mode := fs.String("mode", "sync", "sync|async")
	intervalMs := fs.Int("interval-ms", 0, "pause after each sync send")
	prefix := fs.String("prefix", "m", "body and key prefix")
	tag := fs.String("tag", "", "tag")
	groups := fs.Int("message-groups", 0, "K > 0: FIFO messages with group g<i%K>")
	delayMs := fs.Int64("delay-ms", 0, "D > 0: delay messages")
	_ = fs.Parse(args)
	if *endpoints == "" || *topic == "" {
		fail(2, "produce: --endpoints and --topic are required")
	}
	if *mode != "sync" && *mode != "async" {
		fail(2, "produce: --mode must be sync or async")
	}

	setupClient()
	producer, err := rmq_client.NewProducer(config(*endpoints, ""), rmq_client.WithTopics(*topic))
	if err != nil {
		fail(1, "producer could not be made: %v", err)
	}
	if err = producer.Start(); err != nil {
		fail(1, "producer could not start: %v", err)
	}

	newMessage := func(i int) *rmq_client.Message {
		body := fmt.Sprintf("%s-%d", *prefix, i)
		msg := &rmq_client.Message{Topic: *topic, Body: []byte(body)}
		msg.SetKeys(body)
		if *tag != "" {
			msg.SetTag(*tag)
		}
		if *groups > 0 {
			msg.SetMessageGroup(fmt.Sprintf("g%d", i%*groups))
		}
		if *delayMs > 0 {
			msg.SetDelayTimestamp(time.Now().Add(time.Duration(*delayMs) * time.Millisecond))
		}
		return msg
	}

	if *mode == "sync" {
		for i := 0; i < *count; i++ {
			msg := newMessage(i)
			start := time.Now()
			receipts, err := producer.Send(context.Background(), msg)
			sendResult(i, start, receipts, err)
			if *intervalMs > 0 {
				time.Sleep(time.Duration(*intervalMs) * time.Millisecond)
			}
		}
	} else {
		inflight := make(chan struct{}, 16)
		var wg sync.WaitGroup
		for i := 0; i < *count; i++ {
			inflight <- struct{}{}
			wg.Add(1)
			seq := i
			msg := newMessage(seq)
			start := time.Now()
			producer.SendAsync(context.Background(), msg,
				func(_ context.Context, receipts []*rmq_client.SendReceipt, err error) {
					sendResult(seq, start, receipts, err)
					<-inflight
					wg.Done()
				})
		}
		wg.Wait()
	}
	stopBounded(producer.GracefulStop)
	emit(map[string]string{"op": "done"})
}

// ---- receive ------------------------------------------------------------------------------------

type receiveLine struct {
	Op           string   `json:"op"`
	ID           string   `json:"id"`
	Body         string   `json:"body"`
	Keys         []string `json:"keys"`
	Tag          *string  `json:"tag"`
	MessageGroup *string  `json:"message_group"`
	Attempt      int32    `json:"attempt"`
	DeliveryTs   *int64   `json:"delivery_ts"`
	At           int64    `json:"at"`
}

type resultLine struct {
	Op    string  `json:"op"`
	ID    string  `json:"id"`
	OK    bool    `json:"ok"`
	Error *string `json:"error,omitempty"`
}

func result(op, id string, err error) resultLine {
	if err != nil {
		e := errString(err)
		return resultLine{Op: op, ID: id, OK: false, Error: &e}
	}
	return resultLine{Op: op, ID: id, OK: true}
}

func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

func keysOf(keys []string) []string {
	if keys == nil {
		return []string{}
	}
	return keys
}

func receive(args []string) {
	fs := flag.NewFlagSet("receive", flag.ExitOnError)
	endpoints := fs.String("endpoints", "", "access point(s), host:port[;host:port]")
	topic := fs.String("topic", "", "topic")
	group := fs.String("group", "", "consumer group")
	count := fs.Int("count", -1, "stop once N distinct message ids were acked")
	idleSeconds := fs.Float64("idle-seconds", 20, "stop after S seconds without a message")
	invisibleSeconds := fs.Float64("invisible-seconds", 20, "invisible duration of a receive")
	changeFirst := fs.Bool("change-invisible-first", false, "change the first message's invisible duration to 1 s")
	_ = fs.Parse(args)
	if *endpoints == "" || *topic == "" || *group == "" || *count < 0 {
		fail(2, "receive: --endpoints, --topic, --group and --count are required")
	}

	setupClient()
	consumer, err := rmq_client.NewSimpleConsumer(config(*endpoints, *group),
		rmq_client.WithSimpleAwaitDuration(5*time.Second),
		rmq_client.WithSimpleSubscriptionExpressions(map[string]*rmq_client.FilterExpression{
			*topic: rmq_client.SUB_ALL,
		}),
	)
	if err != nil {
		fail(1, "simple consumer could not be made: %v", err)
	}
	if err = consumer.Start(); err != nil {
		fail(1, "simple consumer could not start: %v", err)
	}

	invisible := time.Duration(*invisibleSeconds * float64(time.Second))
	idle := time.Duration(*idleSeconds * float64(time.Second))
	acked := map[string]bool{}
	changePending := *changeFirst // the next message received is the first one: change, do not ack
	lastArrival := time.Now()

	for len(acked) < *count && time.Since(lastArrival) < idle {
		mvs, err := consumer.Receive(context.Background(), 16, invisible)
		if err != nil {
			var rpc *rmq_client.ErrRpcStatus
			if errors.As(err, &rpc) && rpc.GetCode() == int32(v2.Code_MESSAGE_NOT_FOUND) {
				continue // the long poll ended with no message: not an error
			}
			emit(map[string]string{"op": "receive_error", "error": errString(err)})
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if len(mvs) > 0 {
			lastArrival = time.Now()
		}
		for _, mv := range mvs {
			line := receiveLine{
				Op:           "receive",
				ID:           mv.GetMessageId(),
				Body:         string(mv.GetBody()),
				Keys:         keysOf(mv.GetKeys()),
				Tag:          nonEmpty(mv.GetTag()),
				MessageGroup: nonEmpty(mv.GetMessageGroup()),
				Attempt:      mv.GetDeliveryAttempt(),
				At:           nowMs(),
			}
			if ts := mv.GetDeliveryTimestamp(); ts != nil {
				ms := ts.UnixMilli()
				line.DeliveryTs = &ms
			}
			emit(line)
			if changePending {
				changePending = false
				emit(result("change_invisible", mv.GetMessageId(),
					consumer.ChangeInvisibleDuration(mv, time.Second)))
				continue
			}
			err := consumer.Ack(context.Background(), mv)
			emit(result("ack", mv.GetMessageId(), err))
			if err == nil {
				acked[mv.GetMessageId()] = true
			}
		}
	}
	stopBounded(consumer.GracefulStop)
	emit(map[string]string{"op": "done"})
}

// ---- push ---------------------------------------------------------------------------------------

type consumeLine struct {
	Op           string  `json:"op"`
	ID           string  `json:"id"`
	Body         string  `json:"body"`
	Tag          *string `json:"tag"`
	MessageGroup *string `json:"message_group"`
	Attempt      int32   `json:"attempt"`
	At           int64   `json:"at"`
	Result       string  `json:"result"`
}

func push(args []string) {
	fs := flag.NewFlagSet("push", flag.ExitOnError)
	endpoints := fs.String("endpoints", "", "access point(s), host:port[;host:port]")
	topic := fs.String("topic", "", "topic")
	group := fs.String("group", "", "consumer group")
	seconds := fs.Float64("seconds", 20, "run this long")
	failTag := fs.String("fail-tag", "", "FAILURE for every message with this tag")
	retryTag := fs.String("retry-tag", "", "FAILURE on the first attempt of a message with this tag")
	_ = fs.Parse(args)
	if *endpoints == "" || *topic == "" || *group == "" {
		fail(2, "push: --endpoints, --topic and --group are required")
	}

	setupClient()
	listener := &rmq_client.FuncMessageListener{
		Consume: func(mv *rmq_client.MessageView) rmq_client.ConsumerResult {
			tag := nonEmpty(mv.GetTag())
			res, name := rmq_client.SUCCESS, "SUCCESS"
			if tag != nil {
				if *failTag != "" && *tag == *failTag {
					res, name = rmq_client.FAILURE, "FAILURE"
				} else if *retryTag != "" && *tag == *retryTag && mv.GetDeliveryAttempt() <= 1 {
					res, name = rmq_client.FAILURE, "FAILURE"
				}
			}
			emit(consumeLine{
				Op:           "consume",
				ID:           mv.GetMessageId(),
				Body:         string(mv.GetBody()),
				Tag:          tag,
				MessageGroup: nonEmpty(mv.GetMessageGroup()),
				Attempt:      mv.GetDeliveryAttempt(),
				At:           nowMs(),
				Result:       name,
			})
			return res
		},
	}
	consumer, err := rmq_client.NewPushConsumer(config(*endpoints, *group),
		rmq_client.WithPushSubscriptionExpressions(map[string]*rmq_client.FilterExpression{
			*topic: rmq_client.SUB_ALL,
		}),
		rmq_client.WithPushMessageListener(listener),
	)
	if err != nil {
		fail(1, "push consumer could not be made: %v", err)
	}
	if err = consumer.Start(); err != nil {
		fail(1, "push consumer could not start: %v", err)
	}
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	stopBounded(consumer.GracefulStop)
	emit(map[string]string{"op": "done"})
}

// ---- transact ---------------------------------------------------------------------------------

type txSendLine struct {
	Op       string  `json:"op"`
	Seq      int     `json:"seq"`
	OK       bool    `json:"ok"`
	ID       *string `json:"id,omitempty"`
	Error    *string `json:"error,omitempty"`
	Decision string  `json:"decision"`
}

type endLine struct {
	Op       string  `json:"op"`
	Seq      int     `json:"seq"`
	Decision string  `json:"decision"`
	OK       bool    `json:"ok"`
	Error    *string `json:"error,omitempty"`
}

type checkLine struct {
	Op     string `json:"op"`
	ID     string `json:"id"`
	Body   string `json:"body"`
	Answer string `json:"answer"`
	At     int64  `json:"at"`
}

var answers = map[string]rmq_client.TransactionResolution{
	"commit":   rmq_client.COMMIT,
	"rollback": rmq_client.ROLLBACK,
	"unknown":  rmq_client.UNKNOWN,
}

func transact(args []string) {
	fs := flag.NewFlagSet("transact", flag.ExitOnError)
	endpoints := fs.String("endpoints", "", "access point(s), host:port[;host:port]")
	topic := fs.String("topic", "", "topic (of message type TRANSACTION)")
	count := fs.Int("count", 1, "transactional messages to send, one per transaction")
	prefix := fs.String("prefix", "t", "body and key prefix")
	decisionList := fs.String("decisions", "commit", "comma-separated commit|rollback|none, cycled over seq")
	checkAnswer := fs.String("check-answer", "commit", "the checker's answer: commit|rollback|unknown")
	seconds := fs.Float64("seconds", 0, "keep running this long after the last send, answering check-backs")
	_ = fs.Parse(args)
	if *endpoints == "" || *topic == "" {
		fail(2, "transact: --endpoints and --topic are required")
	}
	decisions := strings.Split(*decisionList, ",")
	for _, d := range decisions {
		if d != "commit" && d != "rollback" && d != "none" {
			fail(2, "transact: --decisions: %q is not commit, rollback or none", d)
		}
	}
	answer, ok := answers[*checkAnswer]
	if !ok {
		fail(2, "transact: --check-answer must be commit, rollback or unknown")
	}

	setupClient()
	checker := &rmq_client.TransactionChecker{
		Check: func(mv *rmq_client.MessageView) rmq_client.TransactionResolution {
			emit(checkLine{Op: "check", ID: mv.GetMessageId(), Body: string(mv.GetBody()), Answer: *checkAnswer,
				At: nowMs()})
			return answer
		},
	}
	producer, err := rmq_client.NewProducer(config(*endpoints, ""),
		rmq_client.WithTransactionChecker(checker), rmq_client.WithTopics(*topic))
	if err != nil {
		fail(1, "producer could not be made: %v", err)
	}
	if err = producer.Start(); err != nil {
		fail(1, "producer could not start: %v", err)
	}

	for i := 0; i < *count; i++ {
		decision := decisions[i%len(decisions)]
		body := fmt.Sprintf("%s-%d", *prefix, i)
		msg := &rmq_client.Message{Topic: *topic, Body: []byte(body)}
		msg.SetKeys(body)
		transaction := producer.BeginTransaction()
		receipts, err := producer.SendWithTransaction(context.Background(), msg, transaction)
		if err == nil && len(receipts) == 0 {
			err = errors.New("the client returned no send receipt")
		}
		if err != nil {
			e := errString(err)
			emit(txSendLine{Op: "send", Seq: i, OK: false, Error: &e, Decision: decision})
			continue
		}
		id := receipts[0].MessageID
		emit(txSendLine{Op: "send", Seq: i, OK: true, ID: &id, Decision: decision})
		if decision == "none" {
			continue
		}
		if decision == "commit" {
			err = transaction.Commit()
		} else {
			err = transaction.RollBack()
		}
		line := endLine{Op: "end", Seq: i, Decision: decision, OK: err == nil}
		if err != nil {
			e := errString(err)
			line.Error = &e
		}
		emit(line)
	}
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	stopBounded(producer.GracefulStop)
	emit(map[string]string{"op": "done"})
}

// ---- main ---------------------------------------------------------------------------------------

func main() {
	if len(os.Args) < 2 {
		fail(2, "usage: driver produce|receive|push|transact --endpoints E --topic T [options] (client %s)", clientVersion())
	}
	switch os.Args[1] {
	case "produce":
		produce(os.Args[2:])
	case "receive":
		receive(os.Args[2:])
	case "push":
		push(os.Args[2:])
	case "transact":
		transact(os.Args[2:])
	default:
		fail(2, "unknown command %q: produce, receive, push or transact", os.Args[1])
	}
}
