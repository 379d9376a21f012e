package ccsdemo

import (
	"errors"

	"github.com/switchboard-ai/switchboard/ccs"
)

// Register records the payload type of every demo enricher in r. It fails if any pair is
// already registered.
func Register(r *ccs.Registry) error {
	return errors.Join(
		ccs.Register[OfferList](r, "offer_list", "offers.search"),
		ccs.Register[CouponList](r, "coupon_list", "coupons.list"),
		ccs.Register[PriceQuote](r, "price_quote", "prices.lookup"),
		ccs.Register[PointsBalance](r, "points_balance", "points.balance"),
		ccs.Register[TierStatus](r, "tier_status", "rewards.tier"),
		ccs.Register[RewardList](r, "reward_list", "rewards.catalog"),
		ccs.Register[OrderList](r, "order_list", "orders.recent"),
		ccs.Register[ReturnStatus](r, "return_status", "returns.status"),
		ccs.Register[AccountProfile](r, "account_profile", "account.profile"),
		ccs.Register[TripList](r, "trip_list", "trips.upcoming"),
		ccs.Register[FlightStatus](r, "flight_status", "flights.status"),
		ccs.Register[HotelList](r, "hotel_list", "hotels.search"),
	)
}
