package ccs

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testOffers struct {
	Offers []testOffer `json:"offers"`
}

type testOffer struct {
	Title string  `json:"title"`
	Price float64 `json:"price"`
}

type testCoupons struct {
	Codes []string `json:"codes"`
}

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry()
	if err := Register[testOffers](r, "offer_list", "offers.search"); err != nil {
		t.Fatalf("Register() = %v", err)
	}
	if err := Register[testCoupons](r, "coupon_list", "coupons.list"); err != nil {
		t.Fatalf("Register() = %v", err)
	}
	return r
}

func TestRegistryDecode(t *testing.T) {
	r := testRegistry(t)
	tests := []struct {
		name    string
		resp    *RawResponse
		want    any
		wantErr error
	}{
		{"offers", envelope(func(e *RawResponse) {
			e.Payload = json.RawMessage(`{"offers":[{"title":"Pegasus","price":99.5}]}`)
		}), testOffers{Offers: []testOffer{{"Pegasus", 99.5}}}, nil},
		{"unknown fields tolerated", envelope(func(e *RawResponse) {
			e.Payload = json.RawMessage(`{"offers":[],"added_in_1_3":true}`)
		}), testOffers{Offers: []testOffer{}}, nil},
		{"null payload is zero", envelope(func(e *RawResponse) { e.Payload = json.RawMessage(`null`) }), testOffers{}, nil},
		{"coupons", envelope(func(e *RawResponse) {
			e.DomainType, e.EnricherID = "coupon_list", "coupons.list"
			e.Payload = json.RawMessage(`{"codes":["RUN10"]}`)
		}), testCoupons{Codes: []string{"RUN10"}}, nil},
		{"wrong shape", envelope(func(e *RawResponse) { e.Payload = json.RawMessage(`{"offers":"many"}`) }), nil, ErrMalformed},
		{"trailing data", envelope(func(e *RawResponse) { e.Payload = json.RawMessage(`{} {}`) }), nil, ErrMalformed},
		{"unknown pair", envelope(func(e *RawResponse) { e.EnricherID = "offers.other" }), nil, ErrUnregistered},
		{"mixed pair", envelope(func(e *RawResponse) { e.DomainType = "coupon_list" }), nil, ErrUnregistered},
		{"nil", nil, nil, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Decode(tt.resp)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decode() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decode() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnwrap(t *testing.T) {
	r := testRegistry(t)
	raw := envelope(func(e *RawResponse) {
		e.Status = StatusPartial
		e.Payload = json.RawMessage(`{"offers":[{"title":"Pegasus","price":99.5}]}`)
		e.Partial = []FailedSource{{Source: "pricing", Reason: "slow"}}
		e.CacheMeta = CacheMeta{Cached: true}
		e.Signature = "ab"
	})
	got, err := Unwrap[testOffers](r, raw)
	if err != nil {
		t.Fatalf("Unwrap() error = %v", err)
	}
	want := &EnricherResponse[testOffers]{
		Status: StatusPartial, Principal: "alice", DomainType: "offer_list", EnricherID: "offers.search",
		Version: "1.2.0", Payload: testOffers{Offers: []testOffer{{"Pegasus", 99.5}}},
		Partial: []FailedSource{{Source: "pricing", Reason: "slow"}}, CacheMeta: CacheMeta{Cached: true}, Signature: "ab",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unwrap() mismatch (-want +got):\n%s", diff)
	}

	if _, err := Unwrap[testCoupons](r, raw); !errors.Is(err, ErrUnregistered) {
		t.Errorf("Unwrap[wrong type]() error = %v, want %v", err, ErrUnregistered)
	}
	raw.EnricherID = "nope"
	if _, err := Unwrap[testOffers](r, raw); !errors.Is(err, ErrUnregistered) {
		t.Errorf("Unwrap[unknown pair]() error = %v, want %v", err, ErrUnregistered)
	}
}

func TestRegisterErrors(t *testing.T) {
	r := testRegistry(t)
	if err := Register[testOffers](r, "offer_list", "offers.search"); !errors.Is(err, ErrDuplicateRegistration) {
		t.Errorf("Register(duplicate) = %v, want %v", err, ErrDuplicateRegistration)
	}
	if err := Register[testOffers](r, "", "x"); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Register(empty domain type) = %v, want %v", err, ErrInvalidConfig)
	}
}
