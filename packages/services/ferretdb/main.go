// Command ferretdb-launcher runs FerretDB (MongoDB wire protocol, SQLite backend) on a loopback TCP
// address, for nodebench's embedded database.
//
// It embeds github.com/FerretDB/FerretDB/ferretdb rather than building FerretDB's own cmd/ferretdb,
// which panics when built as the main program outside its repository (its version.txt is not in the
// module).
//
// Usage: ferretdb-launcher -listen 127.0.0.1:0 -data <dir>
//
// When ready, it prints one line "ready <mongodb-uri>" on stdout, so the caller learns the port even
// when it asked for port 0. It stops on SIGINT/SIGTERM, or when stdin is closed with -exit-on-stdin-close
// (so a parent that dies without cleaning up does not leave the database running).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback host:port to listen on (port 0 picks a free one)")
	dataDir := flag.String("data", "", "directory for the SQLite databases (required)")
	exitOnStdinClose := flag.Bool("exit-on-stdin-close", false, "stop when stdin reaches end of file")
	flag.Parse()

	if *dataDir == "" {
		log.Fatal("ferretdb-launcher: -data <dir> is required")
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		log.Fatalf("ferretdb-launcher: data directory %q: %v", *dataDir, err)
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		log.Fatalf("ferretdb-launcher: cannot create data directory %q: %v", dir, err)
	}

	address, err := resolveAddress(*listen)
	if err != nil {
		log.Fatalf("ferretdb-launcher: -listen %q: %v", *listen, err)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: address},
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		log.Fatalf("ferretdb-launcher: %v", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if *exitOnStdinClose {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	fmt.Printf("ready %s\n", f.MongoDBURI())

	if err = <-done; err != nil && ctx.Err() == nil {
		log.Fatalf("ferretdb-launcher: %v", err)
	}
}

// resolveAddress turns port 0 into a concrete free port: FerretDB's MongoDBURI reports the configured
// address, so it must be the real one.
func resolveAddress(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", err
	}
	if port != "0" {
		return listen, nil
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
