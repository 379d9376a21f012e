package assembly

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/principal"
)

// devFaults serves PUT (replace) and DELETE (clear) of the embedded demo CCS's faults, so an
// eval run against a live dev server can inject the failures its cases describe. It exists
// only in dev mode with the embedded CCS. Faults apply to the caller's own principal only: a
// signed-in user can break their own CCS calls, never another user's.
//
// Faults name enrichers the bound sub-agents call (known returns them) or "*"; an unknown id is
// refused, since a fault on it would never fire and the eval that set it would pass unbroken.
func devFaults(demo *ccsdemo.Server, known func() []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := principal.FromContext(r.Context())
		if !ok || p == "" { // the route is behind bearer auth; this is a wiring mistake
			jsonError(w, http.StatusUnauthorized, `{"error":{"code":"unauthenticated","message":"Send Authorization: Bearer <token>."}}`)
			return
		}
		switch r.Method {
		case http.MethodDelete:
			demo.ClearFor(string(p))
			w.WriteHeader(http.StatusNoContent)
		case http.MethodPut:
			var faults map[string]ccsdemo.Fault
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&faults); err != nil {
				msg := `Send a JSON object of enricher id to fault, such as {"points.balance": "hang"}.`
				if errors.Is(err, ccsdemo.ErrFault) {
					msg = err.Error() + ". " + msg
				}
				if !strings.Contains(msg, ccsdemo.FaultWords) {
					msg += " A fault is one of " + ccsdemo.FaultWords + `, or an object such as {"latency": "2s"}.`
				}
				body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "invalid_body", "message": msg}})
				jsonError(w, http.StatusBadRequest, string(body))
				return
			}
			var unknown []string
			for id := range faults {
				if id != "*" && !slices.Contains(known(), id) {
					unknown = append(unknown, id)
				}
			}
			if len(unknown) > 0 {
				slices.Sort(unknown)
				ids := slices.Clone(known())
				slices.Sort(ids)
				msg := fmt.Sprintf("No bound sub-agent calls enricher %s. Known enrichers: %s, or * for all.",
					strings.Join(unknown, ", "), strings.Join(slices.Compact(ids), ", "))
				body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": "unknown_enricher", "message": msg}})
				jsonError(w, http.StatusBadRequest, string(body))
				return
			}
			demo.ClearFor(string(p))
			for id, f := range faults {
				demo.InjectFor(string(p), id, f)
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", "PUT, DELETE")
			jsonError(w, http.StatusMethodNotAllowed, `{"error":{"code":"method_not_allowed","message":"Use PUT or DELETE."}}`)
		}
	})
}

func jsonError(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
