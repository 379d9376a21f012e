package orchestrator

import (
	"fmt"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Each status event counts once under its own labels, whether its set was built for it or kept
// from an earlier event (also one racing it).
func TestStatusEventSetsCountEachEvent(t *testing.T) {
	rd := sdkmetric.NewManualReader()
	in, err := newInstruments(sdkmetric.NewMeterProvider(sdkmetric.WithReader(rd)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			in.statusEvent("shop", "searching", "forward")
			in.statusEvent("rewards", "searching", "forward")
		})
	}
	wg.Wait()
	in.statusEvent("shop", "searching", "drop")
	series, _ := collect(t, rd)
	for key, want := range map[string]float64{
		"switchboard_status_events_total{agent=shop,event=searching,policy=forward}":    4,
		"switchboard_status_events_total{agent=rewards,event=searching,policy=forward}": 4,
		"switchboard_status_events_total{agent=shop,event=searching,policy=drop}":       1,
	} {
		if got := series[key]; got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}

// Past maxStatusSets a status event's set is built for it, as right as a kept one.
func TestStatusSetsPastTheCap(t *testing.T) {
	in, err := newInstruments(sdkmetric.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxStatusSets + 3 {
		event := fmt.Sprint("e", i)
		for range 2 {
			got := metric.NewAddConfig(in.statusSet("shop", event, "forward")).Attributes()
			want := attribute.NewSet(attribute.String("agent", "shop"), attribute.String("event", event), attribute.String("policy", "forward"))
			if !got.Equals(&want) {
				t.Fatalf("statusSet(shop, %s, forward) = %v, want %v", event, got.ToSlice(), want.ToSlice())
			}
		}
	}
	kept := 0
	in.statusSets.Range(func(any, any) bool { kept++; return true })
	if kept != maxStatusSets {
		t.Errorf("%d sets kept, want %d", kept, maxStatusSets)
	}
}
