package ccsdemo_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/switchboard-ai/switchboard/ccs"
	"github.com/switchboard-ai/switchboard/ccs/ccsdemo"
	"github.com/switchboard-ai/switchboard/principal"
)

// The embedded demo CCS reached through the ordinary client, as a sub-agent tool wrapper
// would: enrich, check, then unwrap the typed payload.
func Example() {
	demo := ccsdemo.New(ccsdemo.Options{})
	client, err := ccs.NewClient(ccs.ClientConfig{
		BaseURL:    "http://ccs.embedded",
		HTTPClient: &http.Client{Transport: ccs.NewInProcessTransport(demo)},
	})
	if err != nil {
		panic(err)
	}
	reg := ccs.NewRegistry()
	if err := ccsdemo.Register(reg); err != nil {
		panic(err)
	}

	user := principal.Principal("bob")
	raw, err := client.Enrich(context.Background(), ccs.EnricherRequest{
		Principal: user.String(), EnricherID: "hotels.search", Params: map[string]any{"city": "Tokyo"},
	})
	if err != nil {
		panic(err)
	}
	if v := ccs.Check(raw, user, ccs.CheckOptions{}); !v.Usable() {
		fmt.Println("unavailable:", v.Reason)
		return
	}
	resp, err := ccs.Unwrap[ccsdemo.HotelList](reg, raw)
	if err != nil {
		panic(err)
	}
	for _, h := range resp.Payload.Hotels {
		fmt.Printf("%s (%s) %.2f %s\n", h.Name, h.Neighborhood, h.PricePerNight, h.Currency)
	}

	demo.Inject("hotels.search", ccsdemo.Fault{WrongPrincipal: true, Times: 1})
	raw, _ = client.Enrich(context.Background(), ccs.EnricherRequest{
		Principal: user.String(), EnricherID: "hotels.search", Params: map[string]any{"city": "Tokyo"},
	})
	fmt.Println(ccs.Check(raw, user, ccs.CheckOptions{}))
	// Output:
	// Park Hyatt Tokyo (Shinjuku) 738.00 USD
	// Mitsui Garden Hotel Ginza (Ginza) 189.00 USD
	// Hotel Gracery Shinjuku (Kabukicho) 148.50 USD
	// {unavailable principal_mismatch}
}
