package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"
	mcplib "github.com/mark3labs/mcp-go/mcp"

	"github.com/bifrost-hub/bifrost/wording"
)

// batchVersion is the one protocol revision with JSON-RPC batches: they
// came with 2025-03-26 and went with 2025-06-18. It is also the revision a
// request without an MCP-Protocol-Version header is taken to speak (the
// header came with 2025-06-18).
const batchVersion = mcplib.ProtocolVersion20250326

// batchWorkers bounds how many messages of one batch are answered at
// once.
const batchWorkers = 8

// MaxBatch is the most messages a batch may hold, and MaxBatchAnswer the
// most bytes its answers may come to: a batch is a few calls sent
// together, and one request must not make the hub build without limit.
// Answers past MaxBatchAnswer are each replaced by an error that says so.
const (
	MaxBatch       = 20
	MaxBatchAnswer = 4 << 20
)

// isBatch reports whether body is a JSON array: a batch.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// serveBatch answers a batch in buf: where the request's protocol
// revision has batches, each message as if it came alone (in parallel, as
// JSON-RPC allows), the answers together in one array; a batch of
// notifications only is a 202. Elsewhere the batch is refused as a whole.
func (s *Server) serveBatch(c echo.Context, buf *bytes.Buffer) error {
	req := c.Request()
	if v := req.Header.Get(mcplib.HeaderProtocolVersion); v != "" && v != batchVersion {
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(nil, mcplib.INVALID_REQUEST, fmt.Sprintf(
			"Batches are not supported in protocol version %q (only %s has them): send one JSON-RPC message per request", wording.Clip(v), batchVersion)))
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &msgs); err != nil {
		return s.writeMessage(c, buf, http.StatusBadRequest, unreadable(buf.Bytes(), err))
	}
	if len(msgs) == 0 {
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(nil, mcplib.INVALID_REQUEST, "The batch is empty: send at least one JSON-RPC message"))
	}
	if len(msgs) > MaxBatch {
		return s.writeMessage(c, buf, http.StatusBadRequest, rpcError(nil, mcplib.INVALID_REQUEST, fmt.Sprintf(
			"The batch holds %d messages; a batch may hold at most %d: send the rest in further requests", len(msgs), MaxBatch)))
	}
	answers := make([]any, len(msgs))
	sem := make(chan struct{}, batchWorkers)
	var wg sync.WaitGroup
	for i, m := range msgs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			answers[i] = s.batchAnswer(req, m)
		})
	}
	wg.Wait()

	out := bodies.Get().(*bytes.Buffer)
	defer putBody(out)
	out.WriteByte('[')
	n := 0
	for i, a := range answers {
		if a == nil {
			continue
		}
		if n > 0 {
			out.WriteByte(',')
		}
		mark := out.Len()
		s.appendMessage(out, a)
		if out.Len() > MaxBatchAnswer {
			out.Truncate(mark)
			s.appendMessage(out, rpcError(messageID(msgs[i]), mcplib.INTERNAL_ERROR, fmt.Sprintf(
				"The batch's answers would pass %d MiB: send this request again on its own", MaxBatchAnswer>>20)))
		}
		out.Truncate(out.Len() - 1) // the newline
		n++
	}
	if n == 0 {
		return c.NoContent(http.StatusAccepted)
	}
	out.WriteString("]\n")
	return writeJSON(c, http.StatusOK, out.Bytes())
}

// batchAnswer answers one message of a batch, or nil.
func (s *Server) batchAnswer(req *http.Request, msg json.RawMessage) any {
	var env envelope
	if err := env.read(msg); err != nil {
		return rpcError(nil, mcplib.INVALID_REQUEST, "Each message of a batch is a JSON-RPC object with jsonrpc, id, method and params")
	}
	if refused := refusal(env); refused != nil {
		return *refused
	}
	switch {
	case env.Method == string(mcplib.MethodInitialize):
		return rpcError(env.id, mcplib.INVALID_REQUEST, "A batch may not hold initialize: send initialize alone, then batch what follows")
	case bytes.Contains(msg, metaVersionKey):
		return rpcError(env.id, mcplib.INVALID_REQUEST, "Protocol version "+mcplib.ProtocolVersion20260728+" has no batches: send this request alone")
	}
	a, _ := s.answer(req, msg, env)
	return a
}

// messageID is the id of a batch's message, for an answer written in its
// place.
func messageID(msg json.RawMessage) any {
	var m struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.ID
}
