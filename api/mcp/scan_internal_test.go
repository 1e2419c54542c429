package mcp

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// quickBodies are messages for the quick reading: those in its shape, and
// beside each, ones just outside it (which encoding/json reads instead).
var quickBodies = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_lights","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	" {\n\t\"jsonrpc\" : \"2.0\" , \"id\" : 7 , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"list_lights\" , \"arguments\" : { } } } \r\n",
	`{"jsonrpc":"2.0","id":0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-12,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":01,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"seven","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"s\u0065ven","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`,
	`{"jsonrpc":"2.0","id":"é","method":"ping"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}",
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":[7],"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}`,
	`{"jsonrpc":"2.0","ID":7,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{},"params":{"name":"x"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/list","PARAMS":{"name":"x"}}`,
	`{"jsonrpc":2,"id":7,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":7,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":7,"method":7}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping","result":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping","extra":1}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping"}x`,
	`{"jsonrpc":"2.0","id":7,"method":"ping"}{}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping",}`,
	`{"jsonrpc":"2.0","id":7,"method":"ping"`,
	`{"jsonrpc":"2.0" "id":7}`,
	`{}`,
	`[]`,
	``,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":null}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[]}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":7}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","name":"b"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"Name":"a"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","uri":7}}`,
	`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"bifrost://home"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":null}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{"light":"Desk","on":true,"level":0.5,"list":[1,"x",null,false,{}],"deep":{"a":{"b":[[]]}}}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{"n":1e999}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{"a\u0062":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{"a":1,}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":[1 2]}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":tru}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":"x"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":null}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":"2026-07-28"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p1","x":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":null}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"Łukasz's client","version":"1"}}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-01-01","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":{"n":1e999}}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":[1,2.5,-3e2,true,false,null,"s",[],{}]}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":[1,2,]}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"a\u002fb":1}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":{"y":1,"y":2}}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":1},"_meta":{"y":2}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":1}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","task":{}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":` + deep(40) + `}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","_meta":{"x":` + deep(20) + `}}}`,
}

// deep is an array nested n deep.
func deep(n int) string {
	return string(bytes.Repeat([]byte("["), n)) + string(bytes.Repeat([]byte("]"), n))
}

// slowRead is what the lean path reads of msg with encoding/json alone:
// the envelope, and the params as readParams reads them.
func slowRead(msg []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(msg, &env); err != nil {
		return env, err
	}
	env.hasID = len(env.RawID) > 0
	env.nullID = bytes.Equal(env.RawID, []byte("null"))
	if env.hasID && !env.nullID {
		if err := json.Unmarshal(env.RawID, &env.id); err != nil {
			return env, err
		}
	}
	if env.Params.n == 1 && json.Unmarshal(env.Params.raw, &env.call) == nil {
		env.callRead = true
	}
	return env, nil
}

// checkQuickRead fails when quickRead reads msg, and encoding/json reads
// it differently or not at all.
func checkQuickRead(t *testing.T, msg []byte) bool {
	t.Helper()
	var quick envelope
	if !quick.quickRead(msg) {
		if !reflect.DeepEqual(quick, envelope{}) {
			t.Errorf("%q: not read, but the envelope changed: %+v", msg, quick)
		}
		return false
	}
	slow, err := slowRead(msg)
	if err != nil {
		t.Fatalf("%q: read quickly, but encoding/json: %v", msg, err)
	}
	if !slow.callRead && quick.callRead {
		t.Fatalf("%q: params read quickly, but encoding/json cannot read them", msg)
	}
	// Raw members are compared by their bytes: nil and empty alike.
	same := func(a, b []byte) bool { return bytes.Equal(a, b) }
	switch {
	case !same(quick.JSONRPC, slow.JSONRPC), !same(quick.RawID, slow.RawID), quick.Method != slow.Method,
		!same(quick.Params.raw, slow.Params.raw), quick.Params.n != slow.Params.n,
		!same(quick.Result, slow.Result), !same(quick.Error, slow.Error),
		quick.hasID != slow.hasID, quick.nullID != slow.nullID, !reflect.DeepEqual(quick.id, slow.id),
		quick.callRead != slow.callRead,
		quick.call.Name != slow.call.Name, quick.call.URI != slow.call.URI, !same(quick.call.Arguments, slow.call.Arguments),
		!reflect.DeepEqual(quick.call.Meta, slow.call.Meta):
		t.Fatalf("%q:\nquick %+v %+v\nslow  %+v %+v", msg, quick, quick.call.Meta, slow, slow.call.Meta)
	}
	return true
}

func TestQuickReadReadsAsEncodingJSON(t *testing.T) {
	read := 0
	for _, msg := range quickBodies {
		if checkQuickRead(t, []byte(msg)) {
			read++
		}
	}
	for _, tc := range modernCases {
		body := tc.request("k").Body
		var b bytes.Buffer
		_, _ = b.ReadFrom(body)
		checkQuickRead(t, b.Bytes())
	}
	if read < 20 {
		t.Errorf("only %d of the bodies were read quickly", read)
	}
}

// FuzzQuickRead checks quickRead against encoding/json on any message:
// `go test -run '^$' -fuzz FuzzQuickRead ./api/mcp` searches further
// than the seeds.
func FuzzQuickRead(f *testing.F) {
	for _, msg := range quickBodies {
		f.Add([]byte(msg))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		checkQuickRead(t, msg)
	})
}

func TestParseNumberAsStrconv(t *testing.T) {
	for _, n := range []string{"0", "7", "42", "100000", "999999999999999", "123456789012345", "1234567890123456",
		"9007199254740993", "-0", "-7", "1.5", "1e3", "1E-3", "-2.5e+10", "1e999", "123456789012345678901234567890"} {
		want, err := strconv.ParseFloat(n, 64)
		got, ok := parseNumber([]byte(n))
		if ok != (err == nil) || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%s: %v %v, strconv %v %v", n, got, ok, want, err)
		}
	}
}
