package send

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/otel/wire"
)

// QueueSize is how many request bodies wait at most while one is sent.
const QueueSize = 64

// Serve reads frames from in and sends them until in ends and the queue is sent or the flush bound passes. warn
// is told once, the first failure. It returns how many requests were sent and how many were dropped or failed.
func Serve(in io.Reader, client *http.Client, warn func(string)) (sent, lost int, err error) {
	h, err := wire.ReadHello(in)
	if err != nil {
		return 0, 0, err
	}
	if client == nil {
		client = &http.Client{}
		if h.CAFile != "" {
			tr, err := withCAs(h.CAFile)
			if err != nil {
				warn(fmt.Sprintf("otel: %v; the run goes on without a trace", err))
				io.Copy(io.Discard, in) // vx writes on; nothing is sent
				return 0, 0, nil
			}
			client.Transport = tr
		}
	}
	timeout := time.Duration(h.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = wire.DefaultTimeout
	}
	flush := time.Duration(h.FlushMS) * time.Millisecond
	if flush <= 0 {
		flush = wire.FlushBound
	}
	var once sync.Once
	fail := func(err error) {
		once.Do(func() {
			warn(fmt.Sprintf("otel: cannot export the trace to %s: %v; the run goes on, and spans that cannot be sent are dropped", wire.Redact(h.URL), err))
		})
	}
	queue := make(chan []byte, QueueSize)
	// ctx ends the requests once the flush bound after the pipe's end has passed.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		for body := range queue {
			if ctx.Err() != nil {
				mu.Lock()
				lost++
				mu.Unlock()
				continue
			}
			err := post(ctx, client, h, body, timeout)
			if err != nil && ctx.Err() != nil {
				err = fmt.Errorf("no answer within the %s vx waits for the collector at the end of a run", flush)
			}
			mu.Lock()
			if err != nil {
				lost++
			} else {
				sent++
			}
			mu.Unlock()
			if err != nil {
				fail(err)
			}
		}
	}()
	var readErr error
	for {
		b, err := wire.ReadFrame(in)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
		select {
		case queue <- b:
		default:
			mu.Lock()
			lost++
			mu.Unlock()
			fail(errors.New("the collector is slower than the run: the queue is full"))
		}
	}
	close(queue)
	t := time.AfterFunc(flush, cancel)
	defer t.Stop()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return sent, lost, readErr
}

// post sends one body. A status other than 2xx is a failure (OTLP/HTTP answers 200 to a success, including a
// partial one; 4xx and 5xx to a refusal or an overload).
func post(ctx context.Context, client *http.Client, h *wire.Hello, body []byte, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if h.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		body = b.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return errors.New("the URL is not valid")
	}
	for _, kv := range h.Headers {
		req.Header.Add(kv[0], kv[1])
	}
	req.Header.Set("Content-Type", h.ContentType)
	if h.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	req.Header.Set("User-Agent", "vx")
	resp, err := client.Do(req)
	if err != nil {
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap() // without the URL, which the warning already names
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %s", timeout)
		}
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		s := strings.TrimSpace(string(msg))
		if h.ContentType != "application/json" || len(s) > 200 {
			s = "" // a protobuf Status, or too long for one line
		}
		if s != "" {
			return fmt.Errorf("the collector answered %s: %s", resp.Status, strconv.Quote(s))
		}
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// withCAs is a transport that trusts the CAs of the PEM file path besides the system's.
func withCAs(path string) (*http.Transport, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CERTIFICATE: %s holds no PEM certificate", strconv.Quote(path))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	return tr, nil
}
