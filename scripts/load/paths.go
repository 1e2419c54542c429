package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// listLightsCall is tools/call list_lights on a protocol revision with
// initialize; sessionlessCall the same on 2026-07-28, which carries its
// version (and the client's capabilities) in _meta.
const (
	listLightsCall  = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_lights","arguments":{}}}`
	sessionlessCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_lights","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

// path is one request the hub and the floor are loaded with, and the
// hub's answer to it.
type path struct {
	name   string
	method string
	uri    string
	header [][2]string // besides Host, Authorization and Content-Length
	body   string
	answer []byte // the hub's answer's body, captured once
}

// floorKey is how the floor finds a path's answer: the method, the path
// and the MCP protocol version.
func (p path) floorKey() string {
	return p.method + " " + p.uri + " " + p.headerValue("Mcp-Protocol-Version")
}

func (p path) headerValue(name string) string {
	for _, h := range p.header {
		if http.CanonicalHeaderKey(h[0]) == http.CanonicalHeaderKey(name) {
			return h[1]
		}
	}
	return ""
}

func mcpPath(name, version, body string, extra ...[2]string) path {
	header := append([][2]string{
		{"Content-Type", "application/json"},
		{"Accept", "application/json, text/event-stream"},
		{"Mcp-Protocol-Version", version},
	}, extra...)
	return path{name: name, method: http.MethodPost, uri: "/mcp", header: header, body: body}
}

var paths = []path{
	{name: "GET /api/v1/lights", method: http.MethodGet, uri: "/api/v1/lights"},
	mcpPath("MCP list_lights 2025-11-25", "2025-11-25", listLightsCall),
	mcpPath("MCP list_lights 2026-07-28", "2026-07-28", sessionlessCall, [2]string{"Mcp-Method", "tools/call"}, [2]string{"Mcp-Name", "list_lights"}),
}

// capture asks the hub each path once and keeps its answer.
func capture(cfg config) ([]path, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	out := make([]path, len(paths))
	for i, p := range paths {
		req, err := http.NewRequest(p.method, cfg.url+p.uri, bytes.NewReader([]byte(p.body)))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+cfg.key)
		for _, h := range p.header {
			req.Header.Set(h[0], h[1])
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		if err := answered(res.StatusCode, body); err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		p.answer = body
		out[i] = p
	}
	return out, nil
}

// answered checks an answer is a 200 and not a tool's error.
func answered(status int, body []byte) error {
	if status != http.StatusOK {
		return fmt.Errorf("%d %.300s", status, body)
	}
	if bytes.Contains(body, []byte(`"isError":true`)) {
		return fmt.Errorf("a tool error: %.300s", body)
	}
	return nil
}

// request is the bytes of p's request to the server at host, written as
// they are on each kept-alive connection.
func (p path) request(host, key string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nUser-Agent: bifrost-load\r\n", p.method, p.uri, host, key)
	for _, h := range p.header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if p.body != "" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(p.body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(p.body)
	return b.Bytes()
}
