package main

// The wire-protocol layer in front of FerretDB: clients connect to the launcher's TCP address, and every
// message goes through unchanged to FerretDB's Unix socket, except a createIndexes command whose indexes
// carry expireAfterSeconds. FerretDB 1.24 refuses that option ("not implemented yet"), which stops every app
// that keeps sessions in connect-mongo at start; the layer removes the option, hands the index to FerretDB
// without it, and gives the TTL spec to the monitor (ttl_monitor.go), which expires the documents. The reply
// to a listIndexes of a collection with TTL indexes gets the option back on them, so an app (mongoose's
// syncIndexes) sees the index it created.
//
// The MongoDB wire protocol: a 16-byte header (messageLength, requestID, responseTo, opCode, little endian)
// then the body. An OP_MSG (opCode 2013) body is flagBits, sections, and a CRC-32C checksum when flag bit 0
// is set. Section kind 0 is the command document; kind 1 a document sequence. Only kind 0 is read here:
// drivers send createIndexes' indexes inside the command document.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

const (
	opMsg            = 2013
	headerLength     = 16
	checksumPresent  = 1
	maxMessageLength = 48 * 1024 * 1024 // MongoDB's maxMessageSizeBytes
	backendDialWait  = 5 * time.Second
)

// proxy accepts clients on listener and joins each to a new connection to the backend socket.
type proxy struct {
	listener net.Listener
	backend  string // FerretDB's Unix socket
	monitor  *ttlMonitor
	wg       sync.WaitGroup
}

func (p *proxy) serve() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Printf("ferretdb-launcher: accept: %v", err)
			}
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.join(client)
		}()
	}
}

// dialBackend retries for a moment: a client may connect while FerretDB is still opening its socket.
func (p *proxy) dialBackend() (net.Conn, error) {
	deadline := time.Now().Add(backendDialWait)
	for {
		conn, err := net.Dial("unix", p.backend)
		if err == nil || time.Now().After(deadline) {
			return conn, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *proxy) join(client net.Conn) {
	defer client.Close()
	backend, err := p.dialBackend()
	if err != nil {
		log.Printf("ferretdb-launcher: cannot reach FerretDB at %s: %v", p.backend, err)
		return
	}
	defer backend.Close()

	// Messages are read whole in both directions: requests for createIndexes, replies for listIndexes.
	// pending: the requestIDs of this connection's listIndexes of collections with TTL indexes.
	var pending sync.Map
	go func() {
		defer client.Close()
		reader := bufio.NewReaderSize(backend, 64*1024)
		for {
			message, err := readMessage(reader)
			if err != nil {
				return
			}
			if spec, ok := pending.LoadAndDelete(binary.LittleEndian.Uint32(message[8:12])); ok {
				message = p.addTTL(message, spec.(namespace))
			}
			if _, err = client.Write(message); err != nil {
				return
			}
		}
	}()
	reader := bufio.NewReaderSize(client, 64*1024)
	for {
		message, err := readMessage(reader)
		if err != nil {
			return
		}
		message = p.rewrite(message, func(listed namespace) {
			pending.Store(binary.LittleEndian.Uint32(message[4:8]), listed)
		})
		if _, err = backend.Write(message); err != nil {
			return
		}
	}
}

// namespace is a collection of a database.
type namespace struct{ database, collection string }

// commandOf returns an OP_MSG's command document (its first section, of kind 0), its flags and where it
// ends; ok is false for any other message.
func commandOf(message []byte) (command bson.Raw, flags uint32, end int, ok bool) {
	if len(message) < headerLength+5 || binary.LittleEndian.Uint32(message[12:16]) != opMsg {
		return nil, 0, 0, false
	}
	flags = binary.LittleEndian.Uint32(message[16:20])
	end = len(message)
	if flags&checksumPresent != 0 {
		end -= 4
	}
	position := headerLength + 4
	if end <= position+4 || message[position] != 0 {
		return nil, 0, 0, false
	}
	documentLength := int(binary.LittleEndian.Uint32(message[position+1 : position+5]))
	if documentLength < 5 || position+1+documentLength > end {
		return nil, 0, 0, false
	}
	return bson.Raw(message[position+1 : position+1+documentLength]), flags, end, true
}

// withCommand returns message with its command document replaced by document (and without a checksum,
// which would no longer match).
func withCommand(message []byte, command bson.Raw, flags uint32, end int, document []byte) []byte {
	rest := message[headerLength+5+len(command) : end]
	out := make([]byte, 0, headerLength+5+len(document)+len(rest))
	out = append(out, message[:headerLength]...)
	out = binary.LittleEndian.AppendUint32(out, flags&^checksumPresent)
	out = append(out, 0)
	out = append(out, document...)
	out = append(out, rest...)
	binary.LittleEndian.PutUint32(out[0:4], uint32(len(out)))
	return out
}

// readMessage reads one whole wire-protocol message, header included.
func readMessage(reader *bufio.Reader) ([]byte, error) {
	var lengthBytes [4]byte
	if _, err := io.ReadFull(reader, lengthBytes[:]); err != nil {
		return nil, err
	}
	length := int(binary.LittleEndian.Uint32(lengthBytes[:]))
	if length < headerLength || length > maxMessageLength {
		return nil, fmt.Errorf("message length %d out of range", length)
	}
	message := make([]byte, length)
	copy(message, lengthBytes[:])
	if _, err := io.ReadFull(reader, message[4:]); err != nil {
		return nil, err
	}
	return message, nil
}

// rewrite returns message itself, or, for a createIndexes with TTL indexes, the message without their
// expireAfterSeconds (the TTL specs go to the monitor). A listIndexes of a collection with TTL indexes is
// handed to onListIndexes, so that its reply gets them back. Anything it cannot read goes through unchanged.
func (p *proxy) rewrite(message []byte, onListIndexes func(namespace)) []byte {
	command, flags, end, ok := commandOf(message)
	if !ok {
		return message
	}
	elements, err := command.Elements()
	if err != nil || len(elements) == 0 {
		return message
	}
	switch elements[0].Key() {
	case "createIndexes":
		if rewritten, changed := p.stripTTL(command); changed {
			return withCommand(message, command, flags, end, rewritten)
		}
	case "listIndexes":
		collection, _ := elements[0].Value().StringValueOK()
		database, _ := command.Lookup("$db").StringValueOK()
		if p.monitor.has(database, collection) {
			onListIndexes(namespace{database, collection})
		}
	}
	return message
}

// addTTL returns a listIndexes reply with expireAfterSeconds on the indexes the monitor expires.
func (p *proxy) addTTL(message []byte, listed namespace) []byte {
	command, flags, end, ok := commandOf(message)
	if !ok {
		return message
	}
	var reply bson.D
	if err := bson.Unmarshal(command, &reply); err != nil {
		return message
	}
	changed := false
	for _, element := range reply {
		cursor, isDocument := element.Value.(bson.D)
		if element.Key != "cursor" || !isDocument {
			continue
		}
		for _, field := range cursor {
			batch, isArray := field.Value.(bson.A)
			if field.Key != "firstBatch" || !isArray {
				continue
			}
			for i, entry := range batch {
				index, isIndex := entry.(bson.D)
				if !isIndex {
					continue
				}
				var name string
				for _, option := range index {
					if option.Key == "name" {
						name, _ = option.Value.(string)
					}
				}
				if seconds, found := p.monitor.expireAfterSeconds(listed.database, listed.collection, name); found {
					batch[i] = append(index, bson.E{Key: "expireAfterSeconds", Value: seconds})
					changed = true
				}
			}
		}
	}
	if !changed {
		return message
	}
	document, err := bson.Marshal(reply)
	if err != nil {
		return message
	}
	return withCommand(message, command, flags, end, document)
}

// stripTTL removes expireAfterSeconds from the command's indexes and registers each TTL spec.
func (p *proxy) stripTTL(command bson.Raw) ([]byte, bool) {
	var document bson.D
	if err := bson.Unmarshal(command, &document); err != nil {
		return nil, false
	}
	var database, collection string
	var indexes bson.A
	for _, element := range document {
		switch element.Key {
		case "createIndexes":
			collection, _ = element.Value.(string)
		case "$db":
			database, _ = element.Value.(string)
		case "indexes":
			indexes, _ = element.Value.(bson.A)
		}
	}
	changed := false
	for i, entry := range indexes {
		index, ok := entry.(bson.D)
		if !ok {
			continue
		}
		kept := index[:0:0]
		var seconds any
		for _, option := range index {
			if option.Key == "expireAfterSeconds" {
				seconds = option.Value
				continue
			}
			kept = append(kept, option)
		}
		if seconds == nil {
			continue
		}
		changed = true
		indexes[i] = kept
		p.monitor.register(database, collection, kept, seconds)
	}
	if !changed {
		return nil, false
	}
	rewritten, err := bson.Marshal(document)
	if err != nil {
		return nil, false
	}
	return rewritten, true
}
