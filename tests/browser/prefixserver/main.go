// Command prefixserver serves switchboard the way an embedding program does, under a path
// prefix of its own mux (http.StripPrefix), for the browser test of the chat page mounted
// there. Everything else is the library's default: the demo agents, the offline model, the
// embedded demo CCS, the memory store and dev sign-in.
//
//	go run ./tests/browser/prefixserver --addr 127.0.0.1:8080 --prefix /assistant
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-ai/switchboard"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	prefix := flag.String("prefix", "/assistant", "path the service is mounted under")
	agents := flag.String("agents", "demo", "agents folder")
	flag.Parse()
	if err := run(*addr, strings.TrimSuffix(*prefix, "/"), *agents); err != nil {
		log.Fatal(err)
	}
}

func run(addr, prefix, agents string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := switchboard.New(ctx, switchboard.Options{Agents: agents})
	if err != nil {
		return err
	}
	defer srv.Close(context.Background())

	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, srv.Handler()))
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	log.Printf("serving switchboard under %s/ on %s", prefix, addr)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
