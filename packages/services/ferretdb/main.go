// Command ferretdb-launcher runs FerretDB (MongoDB wire protocol, SQLite backend) on a loopback TCP
// address, for nodebench's embedded database, with the TTL indexes FerretDB lacks: FerretDB listens on a
// private Unix socket, and clients reach it through a thin wire-protocol layer (wire_proxy.go) that takes
// expireAfterSeconds off createIndexes for the TTL monitor (ttl_monitor.go).
//
// It embeds github.com/FerretDB/FerretDB/ferretdb rather than building FerretDB's own cmd/ferretdb,
// which panics when built as the main program outside its repository (its version.txt is not in the
// module).
//
// Usage: ferretdb-launcher -listen 127.0.0.1:0 -data <dir> [-ttl-monitor-sleep-secs 60] [-postgresql-url <url>]
//
// -postgresql-url runs FerretDB's PostgreSQL backend on that database instead of SQLite files in -data (which
// still holds the TTL specs): what the backends' measurement (benchmarks/ferretdb-backends.js) compares.
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
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback host:port to listen on (port 0 picks a free one)")
	dataDir := flag.String("data", "", "directory for the SQLite databases (required)")
	exitOnStdinClose := flag.Bool("exit-on-stdin-close", false, "stop when stdin reaches end of file")
	postgreSQLURL := flag.String("postgresql-url", "", "use FerretDB's PostgreSQL backend on this database instead of SQLite")
	ttlSleepSecs := flag.Int("ttl-monitor-sleep-secs", 60, "seconds between two TTL passes (MongoDB's ttlMonitorSleepSecs)")
	flag.Parse()

	if *dataDir == "" {
		log.Fatal("ferretdb-launcher: -data <dir> is required")
	}
	if *ttlSleepSecs < 1 {
		log.Fatalf("ferretdb-launcher: -ttl-monitor-sleep-secs %d: must be 1 or more", *ttlSleepSecs)
	}
	dir, err := filepath.Abs(*dataDir)
	if err != nil {
		log.Fatalf("ferretdb-launcher: data directory %q: %v", *dataDir, err)
	}
	if err = os.MkdirAll(dir, 0o755); err != nil {
		log.Fatalf("ferretdb-launcher: cannot create data directory %q: %v", dir, err)
	}

	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("ferretdb-launcher: -listen %q: %v", *listen, err)
	}
	backend := ferretdb.Config{Handler: "sqlite", SQLiteURL: "file:" + dir + "/"}
	if *postgreSQLURL != "" {
		backend = ferretdb.Config{Handler: "postgresql", PostgreSQLURL: *postgreSQLURL}
	}
	if err = run(listener, dir, backend, *exitOnStdinClose, time.Duration(*ttlSleepSecs)*time.Second); err != nil {
		log.Fatalf("ferretdb-launcher: %v", err)
	}
}

// run serves until a signal (or stdin's end): FerretDB on a private socket, the wire layer on listener.
func run(listener net.Listener, dataDir string, backend ferretdb.Config, exitOnStdinClose bool, ttlEvery time.Duration) error {
	defer listener.Close()
	// A short private path: a Unix socket path has at most 107 bytes, which a data directory may exceed.
	socketDir, err := os.MkdirTemp("", "nodebench-ferretdb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(socketDir)
	socket := filepath.Join(socketDir, "ferretdb.sock")

	backend.Listener = ferretdb.ListenerConfig{Unix: socket}
	f, err := ferretdb.New(&backend)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if exitOnStdinClose {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	monitor := newTTLMonitor(dataDir)
	client, err := mongo.Connect(ctx, options.Client().ApplyURI("mongodb://"+url.PathEscape(socket)))
	if err != nil {
		stop()
		<-done
		return err
	}
	defer client.Disconnect(context.Background()) //nolint:errcheck // stopping anyway
	monitorDone := make(chan struct{})
	go func() {
		defer close(monitorDone)
		monitor.run(ctx, client, ttlEvery)
	}()
	// Once stopping, FerretDB waits for every connection still open to its socket, for up to 3 s: the monitor's
	// own client is one, so it leaves as soon as the monitor has stopped (and no new client is taken), and the
	// launcher exits at once instead of 3 s later.
	go func() {
		<-ctx.Done()
		_ = listener.Close()
		<-monitorDone
		_ = client.Disconnect(context.Background())
	}()

	layer := &proxy{listener: listener, backend: socket, monitor: monitor}
	go layer.serve()

	fmt.Printf("ready mongodb://%s/\n", listener.Addr())

	err = <-done
	if ctx.Err() != nil {
		return nil
	}
	return err
}
