package main

// TTL indexes for FerretDB, which has none: what MongoDB's TTL monitor does, done from outside. The wire
// layer (wire_proxy.go) hands over each index created with expireAfterSeconds; every pass (60 s by default,
// MongoDB's ttlMonitorSleepSecs) deletes, for each one, the documents whose indexed field is a date older than
// expireAfterSeconds. As in MongoDB: single-field indexes only, documents without a date there stay, and a
// document lives up to one pass past its expiry.
//
// The specs are kept in ttl-indexes.json in the data directory (FerretDB reads only *.sqlite files there),
// so a restarted database keeps expiring. An index that no longer exists (its collection, index or database
// dropped) is forgotten on the next pass: listIndexes is asked each time.

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

const specsFile = "ttl-indexes.json"

type ttlSpec struct {
	Database           string `json:"database"`
	Collection         string `json:"collection"`
	Index              string `json:"index"`
	Field              string `json:"field"`
	ExpireAfterSeconds int64  `json:"expireAfterSeconds"`
}

func (s ttlSpec) id() string { return s.Database + "\x00" + s.Collection + "\x00" + s.Index }

type ttlMonitor struct {
	mu    sync.Mutex
	file  string
	specs map[string]ttlSpec
}

func newTTLMonitor(dataDir string) *ttlMonitor {
	m := &ttlMonitor{file: filepath.Join(dataDir, specsFile), specs: map[string]ttlSpec{}}
	content, err := os.ReadFile(m.file)
	if err != nil {
		return m
	}
	var saved []ttlSpec
	if err = json.Unmarshal(content, &saved); err != nil {
		log.Printf("ferretdb-launcher: ignoring unreadable %s: %v", m.file, err)
		return m
	}
	for _, spec := range saved {
		m.specs[spec.id()] = spec
	}
	return m
}

// register keeps the TTL spec of an index with key `key` (single field) and option value `seconds`.
func (m *ttlMonitor) register(database, collection string, index bson.D, seconds any) {
	var name string
	var key bson.D
	for _, option := range index {
		switch option.Key {
		case "name":
			name, _ = option.Value.(string)
		case "key":
			key, _ = option.Value.(bson.D)
		}
	}
	expireAfterSeconds, ok := wholeSeconds(seconds)
	if !ok || len(key) != 1 || database == "" || collection == "" {
		log.Printf("ferretdb-launcher: %s.%s index %q: expireAfterSeconds %v ignored (single-field index and 0 to 2147483647 s only)",
			database, collection, name, seconds)
		return
	}
	if name == "" {
		name = fmt.Sprintf("%s_%v", key[0].Key, key[0].Value)
	}
	spec := ttlSpec{database, collection, name, key[0].Key, expireAfterSeconds}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.specs[spec.id()] == spec {
		return
	}
	m.specs[spec.id()] = spec
	m.saveLocked()
}

func wholeSeconds(value any) (int64, bool) {
	var seconds float64
	switch number := value.(type) {
	case int32:
		seconds = float64(number)
	case int64:
		seconds = float64(number)
	case float64:
		seconds = number
	default:
		return 0, false
	}
	if math.IsNaN(seconds) || seconds < 0 || seconds > math.MaxInt32 {
		return 0, false
	}
	return int64(seconds), true
}

// has says whether the collection has a TTL index.
func (m *ttlMonitor) has(database, collection string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, spec := range m.specs {
		if spec.Database == database && spec.Collection == collection {
			return true
		}
	}
	return false
}

// expireAfterSeconds is the option of the collection's TTL index `index`, as MongoDB lists it (an int32).
func (m *ttlMonitor) expireAfterSeconds(database, collection, index string) (int32, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	spec, found := m.specs[ttlSpec{Database: database, Collection: collection, Index: index}.id()]
	return int32(spec.ExpireAfterSeconds), found
}

func (m *ttlMonitor) snapshot() []ttlSpec {
	m.mu.Lock()
	defer m.mu.Unlock()
	specs := make([]ttlSpec, 0, len(m.specs))
	for _, spec := range m.specs {
		specs = append(specs, spec)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].id() < specs[j].id() })
	return specs
}

func (m *ttlMonitor) forget(spec ttlSpec) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.specs, spec.id())
	m.saveLocked()
}

// saveLocked writes the specs through a temporary file renamed into place.
func (m *ttlMonitor) saveLocked() {
	specs := make([]ttlSpec, 0, len(m.specs))
	for _, spec := range m.specs {
		specs = append(specs, spec)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].id() < specs[j].id() })
	content, _ := json.MarshalIndent(specs, "", "  ")
	temporary := m.file + ".tmp"
	if err := os.WriteFile(temporary, append(content, '\n'), 0o644); err != nil {
		log.Printf("ferretdb-launcher: cannot keep the TTL indexes in %s: %v", m.file, err)
		return
	}
	if err := os.Rename(temporary, m.file); err != nil {
		log.Printf("ferretdb-launcher: cannot keep the TTL indexes in %s: %v", m.file, err)
	}
}

// run makes a pass every `every` until ctx is done.
func (m *ttlMonitor) run(ctx context.Context, client *mongo.Client, every time.Duration) {
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			for _, spec := range m.snapshot() {
				if ctx.Err() != nil {
					return
				}
				m.expire(ctx, client, spec)
			}
		}
	}
}

// expire deletes spec's expired documents, or forgets spec when its index is gone.
func (m *ttlMonitor) expire(ctx context.Context, client *mongo.Client, spec ttlSpec) {
	collection := client.Database(spec.Database).Collection(spec.Collection)
	exists, err := indexExists(ctx, collection, spec.Index)
	if err != nil {
		log.Printf("ferretdb-launcher: TTL pass on %s.%s: %v", spec.Database, spec.Collection, err)
		return
	}
	if !exists {
		m.forget(spec)
		return
	}
	cutoff := time.Now().Add(-time.Duration(spec.ExpireAfterSeconds) * time.Second)
	// $lt on a date matches dates only (BSON type order), as MongoDB's monitor deletes only dates; an array
	// of dates matches when one of them is older, which is MongoDB's "earliest date" rule.
	filter := bson.D{{Key: spec.Field, Value: bson.D{{Key: "$lt", Value: cutoff}}}}
	if _, err = collection.DeleteMany(ctx, filter); err != nil {
		log.Printf("ferretdb-launcher: TTL pass on %s.%s: %v", spec.Database, spec.Collection, err)
	}
}

func indexExists(ctx context.Context, collection *mongo.Collection, name string) (bool, error) {
	cursor, err := collection.Indexes().List(ctx)
	if err != nil {
		// A collection or database that no longer exists has no indexes.
		if commandError, ok := err.(mongo.CommandError); ok && commandError.Code == 26 { // NamespaceNotFound
			return false, nil
		}
		return false, err
	}
	defer cursor.Close(ctx)
	for cursor.Next(ctx) {
		if indexName, ok := cursor.Current.Lookup("name").StringValueOK(); ok && indexName == name {
			return true, nil
		}
	}
	return false, cursor.Err()
}
