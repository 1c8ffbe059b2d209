// Package jsonobj reads and writes JSON objects with their members in
// order: a settings file warden merges into keeps the person's order, and
// the panel shows a call's arguments as the model sent them.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Raw is one member of an object as read: its key and its value's text.
type Raw struct {
	Key   string
	Value json.RawMessage
}

// Parse reads data, which must be one JSON object with nothing after it,
// into its members in order, duplicates included. Numbers keep their text.
func Parse(data []byte) ([]Raw, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []Raw
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := kt.(string)
		if !ok {
			return nil, fmt.Errorf("key %v is not a string", kt)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Raw{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// Marshal writes a JSON object of n members in order: member i is the key
// and value member(i) returns, the value as json.Marshal writes it.
func Marshal(n int, member func(i int) (key string, val any)) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k, v := member(i)
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
