package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The dev servers of the readyWhen scripts (ready*.txtar): vxtest's
//
//	vxtest serve tcp|http PORT DELAY [PIDFILE]
//	                          print "booting", wait DELAY, then listen on
//	                          127.0.0.1:PORT and print "listening on PORT"; http
//	                          answers GET /health with 200 and anything else 404;
//	                          runs until killed; PIDFILE gets its process ID
//	vxtest dial PORT          connect to 127.0.0.1:PORT once: "port PORT open", or exit 1
//	vxtest get URL            GET URL once: print its status, exit 1 unless 2xx
func vxtestServe(args []string) (int, bool) {
	switch {
	case len(args) >= 4 && len(args) <= 5 && args[0] == "serve":
		delay, err := time.ParseDuration(args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2, true
		}
		if len(args) == 5 {
			if err := os.WriteFile(args[4], []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1, true
			}
		}
		fmt.Println("booting")
		time.Sleep(delay)
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", args[2]))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		fmt.Println("listening on " + args[2])
		if args[1] == "http" {
			mux := http.NewServeMux()
			mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
			http.Serve(l, mux)
			return 1, true
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return 1, true
			}
			c.Close()
		}
	case len(args) == 2 && args[0] == "dial":
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", args[1]), 2*time.Second)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		c.Close()
		fmt.Printf("port %s open\n", args[1])
		return 0, true
	case len(args) == 2 && args[0] == "get":
		resp, err := (&http.Client{Timeout: 2 * time.Second}).Get(args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1, true
		}
		resp.Body.Close()
		fmt.Println(resp.Status)
		if resp.StatusCode/100 != 2 {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// freePortCmd is the testscript command "freeport NAME": NAME is set to a
// TCP port of 127.0.0.1 that nothing listens on now.
func freePortCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport NAME")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// aliveCmd is the testscript command "alive PIDFILE": the process whose
// ID the file holds is alive (Unix: signal 0 reaches it).
func aliveCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: alive PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	ts.Check(err)
	alive := processAlive(pid)
	if alive == neg {
		ts.Fatalf("process %d alive: %v", pid, alive)
	}
}
