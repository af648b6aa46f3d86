// Command otelcol is a minimal OpenTelemetry collector for vx's end-to-end tests: the collector's own OTLP
// receiver (go.opentelemetry.io/collector/receiver/otlpreceiver, HTTP only) on the address given by -http, and
// every trace it accepts written to stdout as one line of OTLP JSON by the collector's own pdata marshaler.
// It prints "listening <addr>" once the receiver is up and stops on SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
)

func main() {
	addr := flag.String("http", "127.0.0.1:4318", "address of the OTLP/HTTP receiver")
	flag.Parse()
	if err := run(*addr); err != nil {
		log.Fatalf("otelcol: %v", err)
	}
}

func run(addr string) error {
	var mu sync.Mutex
	m := ptrace.JSONMarshaler{}
	sink, err := consumer.NewTraces(func(_ context.Context, td ptrace.Traces) error {
		b, err := m.MarshalTraces(td)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		_, err = fmt.Printf("%s\n", b)
		return err
	})
	if err != nil {
		return err
	}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	configure(cfg, addr)
	r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, sink)
	if err != nil {
		return err
	}
	if err := r.Start(context.Background(), componenttest.NewNopHost()); err != nil {
		return err
	}
	// The receiver listens once Start returns; say so only when a connection is accepted.
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
	}
	fmt.Fprintf(os.Stderr, "listening %s\n", addr)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, os.Interrupt)
	<-ch
	return r.Shutdown(context.Background())
}
