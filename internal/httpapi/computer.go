package httpapi

import (
	"io"
	"net/http"
	"time"

	"github.com/browserd/browserd/internal/computer"
)

// computerAction is POST /api/computer: one action of a computer-use
// model — Anthropic's computer tool or OpenAI's computer-use actions
// (package computer) — carried out with browser tool calls as the
// caller, answered with what happened and a screenshot.
func (a *api) computerAction(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "the body is over the limit; a computer action is small")
		return
	}
	ins, err := computer.Decode(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	start := time.Now()
	res := a.computer.Do(r.Context(), ins...)
	a.log.Info("computer", "action", res.Action, "success", res.Success, "ms", time.Since(start).Milliseconds())
	writeJSON(w, http.StatusOK, res)
}
