package app

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
)

// devFaults serves PUT (replace) and DELETE (clear) of the embedded demo CCS's faults, so an
// eval run against a live dev server can inject the failures its cases describe. It exists
// only in dev mode with the embedded CCS.
func devFaults(demo *ccsdemo.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			demo.Clear()
			w.WriteHeader(http.StatusNoContent)
		case http.MethodPut:
			var faults map[string]ccsdemo.Fault
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&faults); err != nil {
				http.Error(w, `{"error":{"code":"invalid_body","message":"Send a JSON object of enricher id to fault."}}`, http.StatusBadRequest)
				return
			}
			demo.Clear()
			for id, f := range faults {
				demo.Inject(id, f)
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Header().Set("Allow", "PUT, DELETE")
			http.Error(w, `{"error":{"code":"method_not_allowed","message":"Use PUT or DELETE."}}`, http.StatusMethodNotAllowed)
		}
	})
}
