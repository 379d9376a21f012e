package answer

import (
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// TestRenderPicksWhatIsAsked checks the general rules of picking the record and fact a
// question is about: a misspelt field name, a word every record carries, a yes-or-no field, and a word of the
// enclosing record asked beside its own list.
func TestRenderPicksWhatIsAsked(t *testing.T) {
	bills := `{"bills":[
		{"provider":"CityPower","service":"electricity","due_date":"2026-12-10","status":"unpaid","autopay":false},
		{"provider":"AquaWater","service":"water","due_date":"2026-12-03","status":"paid","autopay":true},
		{"provider":"FiberNet","service":"internet","due_date":"2026-12-15","autopay":true}]}`
	cars := `{"vehicles":[
		{"nickname":"the Civic","make":"Honda","registration":{"renewal_fee":{"amount":168,"currency":"USD"}},
		 "service":[{"item":"Oil change","next_due":"2026-12-15"}]},
		{"nickname":"the truck","make":"Ford","model":"F-150","registration":{"renewal_fee":{"amount":214,"currency":"USD"}},
		 "service":[{"item":"Brake inspection","next_due":"2026-12-01"}]}]}`
	policies := `{"policies":[{"name":"Home","deductible":500,"premium_monthly":48.5},{"name":"Car","deductible":750,"premium_monthly":92}]}`
	tests := []struct {
		name, asked, earlier, data string
		tool                       string // the called tool's name, when it matters
		mentions, excludes         []string
	}{
		{
			name:  "a word every record carries leaves the earlier words to say which",
			asked: "is it on autopay", earlier: "how much is the wifi bill", data: bills,
			mentions: []string{"FiberNet"}, excludes: []string{"AquaWater", "CityPower"},
		},
		{
			name:  "the enclosing record's own words are no missing thing of its list",
			asked: "how much is the renewal fee", earlier: "when does the registration on my truck expire", data: cars,
			mentions: []string{"$214.00", "Brake inspection"}, excludes: []string{"No service for", "Civic"},
		},
		{
			name:  "a yes-or-no field asked about picks the records that say yes",
			asked: "do i have any overdue books", data: `{"loans":[{"title":"Dune","overdue":false},{"title":"Emma","overdue":true},{"title":"Ulysses","overdue":false}]}`,
			mentions: []string{"Emma"}, excludes: []string{"Dune", "Ulysses"},
		},
		{
			name:  "a misspelt field name is a field, not a missing record",
			asked: "whats the deductable on my policies", data: policies,
			mentions: []string{"deductible"}, excludes: []string{"no policy for"},
		},
		{
			name:  "a thing no record is about is said to be missing, and no other record shown",
			asked: "when can i refill my metformin", data: `{"prescriptions":[{"drug":"Lisinopril 10 mg","refills_left":2},{"drug":"Atorvastatin 20 mg","refills_left":0}]}`,
			mentions: []string{"no prescription for your metformin"}, excludes: []string{"Lisinopril", "Atorvastatin"},
		},
		{
			name:  "a state only a record's status holds does not name the thing asked after",
			asked: "is my lawnmower ready yet", data: `{"jobs":[
				{"job_no":"J-1","item":"Road bike wheel truing","status":"ready for collection"},
				{"job_no":"J-2","item":"Violin bow rehair","status":"in workshop"}]}`,
			mentions: []string{"no job for your lawnmower"}, excludes: []string{"Road bike", "Violin"},
		},
		{
			name:  "the next one is which record is asked, not a thing none is about",
			asked: "when is the next one due", data: `{"member":"A","invoices":[
				{"invoice_no":"INV-11","period":"November 2026","amount":{"amount":482.50,"currency":"USD"},"status":"paid","paid_on":"2026-11-01"},
				{"invoice_no":"INV-12","period":"December 2026","amount":{"amount":445.00,"currency":"USD"},"status":"due","due":"2026-12-01"}]}`,
			mentions: []string{"$445.00"}, excludes: []string{"anything about", "482.50"},
		},
		{
			name:  "a word one record holds as a value names it, not another record's field of that name",
			asked: "when does my pilot course start", data: `{"courses":[
				{"ref":"C-1","course":"Crew practical","pilot":"Jo Tanner","start":"2026-09-18"},
				{"ref":"C-2","course":"Pilot licence theory","start":"2026-12-05"}]}`,
			mentions: []string{"Dec 5, 2026"}, excludes: []string{"Jo Tanner"},
		},
		{
			name:  "asked what is still to pay, the balance leads over the price the request names",
			asked: "how much have i still got to pay on the boat hire", data: `{"customer":"A","bookings":[
				{"ref":"BH-1","status":"confirmed","boat":{"model":"Sealine 28"},"price":{"hire":{"amount":615.0,"currency":"GBP"},"total":{"amount":680.0,"currency":"GBP"}},
				 "deposit":{"amount":200.0,"currency":"GBP","paid_on":"2026-10-02"},"balance":{"amount":480.0,"currency":"GBP","due":"2026-12-04","status":"unpaid"}},
				{"ref":"BH-0","status":"completed","price":{"hire":{"amount":520.0,"currency":"GBP"}}}]}`,
			mentions: []string{"BH-1: balance amount 480.00 GBP"},
		},
		{
			name:  "a lapsed record beside one in force is left out when neither is named",
			asked: "when does my parking permit run out", data: `{"permits":[
				{"permit_no":"RP-1","zone":"Zone 14","expires":"2026-12-31","status":"active"},
				{"permit_no":"RP-2","zone":"Zone 9","expires":"2025-12-31","status":"expired"}]}`,
			mentions: []string{"Zone 14"}, excludes: []string{"Zone 9", "2025"},
		},
		{
			name:  "a day of the month named as an ordinal picks the record of that day",
			asked: "any slots on the 19th dec", data: `{"free_slots":[
				{"date":"2026-12-19","times":["10:00","16:30"]},{"date":"2027-01-09","times":["13:00"]}]}`,
			mentions: []string{"10:00 and 16:30"}, excludes: []string{"13:00", "anything about"},
		},
		{
			name:  "an empty list is what a record that says only its day says",
			asked: "what about the 20th", data: `{"free_slots":[
				{"date":"2026-12-19","times":["10:00","16:30"]},{"date":"2026-12-20","times":[]}]}`,
			mentions: []string{"Dec 20, 2026, no times"}, excludes: []string{"16:30"},
		},
		{
			name:  "a record's own day stays beside the date asked for",
			asked: "did i skip a delivery over xmas", data: `{"plan":"Explorer","status":"active","frequency":"every 2 weeks",
				"skipped_deliveries":[{"date":"2026-12-30","skipped_on":"2026-11-21"},{"date":"2026-10-07","skipped_on":"2026-09-30"}]}`,
			mentions: []string{"Dec 30, 2026", "Oct 7, 2026"},
		},
		{
			name:  "a status that halts a record is said whatever is asked of it",
			asked: "when's my next coffee delivery", data: `{"plan":"Espresso Lover","status":"paused","started":"2026-02-02",
				"frequency":"every 4 weeks","bags_per_delivery":1,"grind":"espresso","price_per_delivery":{"amount":34,"currency":"GBP"},
				"next_delivery":{"date":"2027-01-19","window":"am"},"payment":{"card":"Mastercard ending 0924","next_charge":{"date":"2027-01-15","amount":34,"currency":"GBP"}},
				"delivery_address":{"line1":"9 Kennington Oval","city":"London","postcode":"SE11 5SW"}}`,
			mentions: []string{"paused", "Jan 19, 2027"},
		},
		{
			name:  "the lists of an object the request names are shown under the record",
			asked: "what food did we pick for the party", data: `{"bookings":[{"booking_ref":"JJ-1","child":"Milo","date":"2026-12-12",
				"food":{"menu":"hot party box","choices":[{"item":"chicken nuggets","count":11},{"item":"cheese pizza","count":2}]},
				"extras":[{"item":"party bags","quantity":18}]}]}`,
			mentions: []string{"chicken nuggets", "cheese pizza"},
		},
		{
			name:  "the lists of an object are shown when the request names something in them",
			asked: "do they know about ava", data: `{"bookings":[{"booking_ref":"JJ-1","child":"Milo","date":"2026-12-12",
				"food":{"menu":"hot party box","allergies":[{"child":"Ava","allergy":"nuts"}]},
				"extras":[{"item":"party bags","quantity":18}]}]}`,
			mentions: []string{"nuts"},
		},
		{
			name:  "a follow-up pointing back keeps the earlier record, though its verb is another's status",
			asked: "which shop do i collect it from", earlier: "when will the signed shirt frame be done", data: `{"jobs":[
				{"job_id":"FR-1","artwork":"Hokusai print","shop":"Islington","status":"ready for collection","collect_by":"2026-12-24"},
				{"job_id":"FR-2","artwork":"Signed football shirt","shop":"Greenwich","status":"in workshop","estimated_ready":"2026-12-09"},
				{"job_id":"FR-3","artwork":"Wedding photo","shop":"Islington","status":"collected","collected":"2026-11-08"}]}`,
			mentions: []string{"Greenwich"}, excludes: []string{"Islington"},
		},
		{
			name:  "a follow-up naming no thing stays with the earlier record, though a word of it is in another's details",
			asked: "how much is that going to cost me", earlier: "when can i pick up my camera from the repair shop", data: `{"repairs":[
				{"ref":"RS-1","item":"Canon camera body","status":"ready","to_pay":{"amount":85.0,"currency":"GBP"}},
				{"ref":"RS-2","item":"Fender amplifier","status":"collected","paid":{"amount":140.0,"currency":"GBP"},"paid_for":"parts, labour and bench costs"}]}`,
			mentions: []string{"85.00"}, excludes: []string{"Fender"},
		},
		{
			name:  "a follow-up naming a record by its name turns to it",
			asked: "and clapham on sunday?", earlier: "is the brixton branch open on saturday", data: `{"branches":[
				{"name":"Brixton branch","hours":"09:00-17:00"},
				{"name":"Clapham branch","hours":"10:00-16:00"}]}`,
			mentions: []string{"Clapham"}, excludes: []string{"Brixton"},
		},
		{
			name:  "a follow-up naming a thing one record holds as a whole value turns to it",
			asked: "any with gluten in it", earlier: "what is on the menu tuesday", data: `{"days":[
				{"day":"Monday","dish":"Lentil stew","contains":["celery"]},
				{"day":"Tuesday","dish":"Fish pie","contains":["fish","milk"]},
				{"day":"Wednesday","dish":"Pasta bake","contains":["gluten","egg"]}]}`,
			mentions: []string{"Pasta bake"}, excludes: []string{"Fish pie"},
		},
		{
			name:  "a follow-up stays with the record the earlier request's subject named, not one its state word fits",
			asked: "how much is left on it", earlier: "is the march gas bill paid", data: `{"bills":[
				{"bill_no":"G-03","period":"March 2026","amount":{"amount":96.4,"currency":"GBP"},"status":"overdue"},
				{"bill_no":"G-02","period":"February 2026","amount":{"amount":88.1,"currency":"GBP"},"status":"paid","paid_on":"2026-03-02"}]}`,
			mentions: []string{"96.40"}, excludes: []string{"88.10"},
		},
		{
			name:  "a word one record holds as a value says which record before a field others have",
			asked: "when does pottery start", data: `{"classes":[
				{"ref":"CL-1","class":"Pottery for beginners","status":"confirmed","sessions":[{"date":"2026-12-05"},{"date":"2026-12-12"}]},
				{"ref":"CL-2","class":"Life drawing","status":"completed","dates":{"start":"2026-09-18","end":"2026-09-22"}},
				{"ref":"CL-3","class":"Watercolour landscapes","status":"waitlisted","requested_dates":{"start":"2027-03-20"}}]}`,
			mentions: []string{"Pottery", "Dec 5, 2026"}, excludes: []string{"Life drawing", "Watercolour"},
		},
		{
			name:  "a word deep in a record's details counts no more than a field another record has",
			asked: "what time will the fitters turn up", data: `{"orders":[
				{"ref":"OR-1","status":"in production","installation":{"date":"2026-12-14","fitters":"Dean Walsh","arrival":"08:00"}},
				{"ref":"OR-2","status":"completed","items":[{"product":"tilt and turn window","room":"bathroom"}]}]}`,
			mentions: []string{"08:00"},
		},
		{
			name:  "the list a place word picks a record of answers, not the lists beside it",
			asked: "who is my next session with", data: `{"client":"A","sessions":[
				{"ref":"S-3","date":"2026-12-03","therapist":"Nora Quinn","status":"confirmed"},
				{"ref":"S-4","date":"2026-12-10","therapist":"Ivan Petrov","status":"confirmed"}],
				"past_sessions":[{"ref":"S-2","date":"2026-11-12","therapist":"Ivan Petrov","status":"attended"}]}`,
			mentions: []string{"Nora Quinn"}, excludes: []string{"Ivan Petrov"},
		},
		{
			name:  "a question asking who is no question of price, whatever word of price follows",
			asked: "whos in charge", earlier: "when do the builders start on the extension", data: `{"jobs":[
				{"job":"J-7","work":"single storey rear extension","start":"2026-12-07","site_lead":"Omar Haddad","status":"scheduled"},
				{"job":"J-5","work":"replace guttering","completed":"2026-10-02","status":"completed"}]}`,
			mentions: []string{"Omar Haddad"}, excludes: []string{"price for"},
		},
		{
			name:  "a verb asks for the field its noun names",
			asked: "how much to renew", data: `{"permits":[
				{"permit_no":"RP-1","kind":"Residential zone permit","zone":"Zone 14, Capitol Hill","valid_from":"2026-01-01","expires":"2026-12-31","status":"active",
				 "renewal":{"opens":"2026-12-01","fee":{"amount":65,"currency":"USD"}}},
				{"permit_no":"VP-2","kind":"Visitor day passes","zone":"Zone 14, Capitol Hill","valid_from":"2026-01-01","expires":"2026-12-31","status":"active"}]}`,
			mentions: []string{"$65.00"},
		},
		{
			name:  "a unit in a field's name follows its number",
			asked: "how many sick days have i used", data: `{"balances":[{"leave_type":"Sick leave","available_days":4,"used_this_year_days":2,"carry_over_max_days":1}]}`,
			mentions: []string{"used this year 2 days", "available 4 days", "carry over max 1 day"}, excludes: []string{"days 2"},
		},
		{
			name:  "a date read as until is still asked for by its member's name",
			asked: "what is the deadline", data: `{"model":"Bosch 500 dishwasher","serial":"FD-88231",
				"price":{"amount":849,"currency":"USD"},"purchased":"2026-10-02",
				"warranty":{"years":2,"registration":{"required":true,"deadline":"2026-12-31"}}}`,
			mentions: []string{"Dec 31, 2026"}, excludes: []string{"$849", "Oct 2"},
		},
		{
			name:  "a long list inside the user's own record still gives the one the request names",
			asked: "what did they charge for the sofa", data: `{"estimate":"E-88","total":{"amount":425,"currency":"USD"},"lines":[
				{"item":"Delivery","amount":{"amount":60,"currency":"USD"}},{"item":"Sofa assembly","amount":{"amount":95,"currency":"USD"}},
				{"item":"Bed assembly","amount":{"amount":80,"currency":"USD"}},{"item":"Old sofa removal","amount":{"amount":40,"currency":"USD"}},
				{"item":"Wall mounting","amount":{"amount":120,"currency":"USD"}},{"item":"Stairs","amount":{"amount":30,"currency":"USD"}}]}`,
			mentions: []string{"$95.00", "$40.00"}, excludes: []string{"$120.00", "$60.00"},
		},
		{
			name:  "the called tool's own word names no amount of its record",
			asked: "whats happening with my claim for the bike", tool: "claims", data: `{"claims":[
				{"item":"Road bike","claimed":{"amount":900,"currency":"USD"},"offer":{"amount":610,"currency":"USD"},"status":"offer made"},
				{"item":"Mirror","claimed":{"amount":120,"currency":"USD"},"status":"paid"}]}`,
			mentions: []string{"$900.00", "$610.00"}, excludes: []string{"Mirror"},
		},
		{
			name:  "a code typed without its marks names the record that writes it with them",
			asked: "is my w2 in", data: `{"documents":[{"name":"W-2 from Acme","status":"received"},{"name":"1099-INT from First Bank","status":"expected"}]}`,
			mentions: []string{"W-2 from Acme"}, excludes: []string{"1099"},
		},
		{
			name:  "what is still to come leaves out the records received",
			asked: "what are you still waiting for", data: `{"forms":[{"name":"Lease copy","status":"received"},{"name":"Pay stub","status":"missing"},
				{"name":"Bank statement","status":"requested"}]}`,
			mentions: []string{"Pay stub", "Bank statement"}, excludes: []string{"Lease copy"},
		},
		{
			name:  "who acts is no missing thing when the thing asked about is held",
			asked: "did my sister drop off the pet deposit", data: `{"payments":[{"item":"Pet deposit","status":"received"},{"item":"December rent","status":"pending"}]}`,
			mentions: []string{"Pet deposit"}, excludes: []string{"no payment for", "December rent"},
		},
		{
			name:  "an amount per unit reads as one price",
			asked: "how much is the late fee", data: `{"locker":"L-12","storage":{"free_days":14,"late_fee":{"amount":5,"currency":"USD","per":"day"}}}`,
			mentions: []string{"$5.00 per day"},
		},
		{
			name:  "a closed record beside an open one is left out when neither is named",
			asked: "whats happening with my complaint", data: `{"complaints":[{"subject":"Noise from unit 4B","status":"open","hearing":"2026-12-10"},
				{"subject":"Blocked driveway","status":"closed","closed_on":"2026-08-30"}]}`,
			mentions: []string{"Noise"}, excludes: []string{"Blocked driveway"},
		},
		{
			name:  "a name joined by an ampersand names its record",
			asked: "how much is the at&t bill", data: `{"bills":[{"provider":"AT&T","amount":{"amount":85,"currency":"USD"},"status":"unpaid"},
				{"provider":"Comcast","amount":{"amount":70,"currency":"USD"},"status":"paid"}]}`,
			mentions: []string{"AT&T"}, excludes: []string{"Comcast"},
		},
		{
			name:  "a list of things holding the one named is the fact asked about",
			asked: "can my dogs come along", data: `{"event":"Garden party","date":"2026-06-12","host":"Ana Lima",
				"bring":["a salad","folding chairs"],"not_allowed":["glass bottles","dogs"]}`,
			mentions: []string{"glass bottles and dogs"}, excludes: []string{"folding chairs", "Ana Lima"},
		},
		{
			name:  "a follow-up's earlier words name the record by its ampersand name",
			asked: "when is it due", earlier: "how much is the at&t bill", data: `{"bills":[{"provider":"AT&T","amount":{"amount":85,"currency":"USD"},"due":"2026-12-03"},
				{"provider":"Comcast","amount":{"amount":70,"currency":"USD"},"due":"2026-12-09"}]}`,
			mentions: []string{"Dec 3"}, excludes: []string{"Comcast"},
		},
		{
			name:  "the one record asked about shows all it holds",
			asked: "where is the tent", data: `{"items":[
				{"name":"Tent","carrier":"UPS","sender":"REI","tracking":"1Z44","received":"2026-11-02","bay":"C-3","size":"large","weight_kg":6,"status":"waiting","hold_until":"2026-11-16"},
				{"name":"Stove","carrier":"USPS","status":"picked up"}]}`,
			mentions: []string{"hold until Nov 16"}, excludes: []string{"Stove"},
		},
		{
			name:  "who does an act names the record of the act",
			asked: "when do the caterers arrive", data: `{"visits":[{"kind":"Catering","date":"2026-12-03"},{"kind":"Florist","date":"2026-11-02"}]}`,
			mentions: []string{"Dec 3"}, excludes: []string{"Nov 2"},
		},
		{
			name:  "who does an act named without the act's final e",
			asked: "what did the baker charge", data: `{"orders":[{"item":"Baking the wedding cake","price":{"amount":320,"currency":"USD"}},
				{"item":"Flowers for the tables","price":{"amount":540,"currency":"USD"}}]}`,
			mentions: []string{"$320.00"}, excludes: []string{"$540.00", "no order for"},
		},
		{
			name:  "a month written for machines names the record for it",
			asked: "how much power did we make in october", data: `{"months":[
				{"month":"2026-09","produced_kwh":1102.8},{"month":"2026-10","produced_kwh":981.4},{"month":"2026-11","produced_kwh":757.6}]}`,
			mentions: []string{"981.4", "October 2026"}, excludes: []string{"1,102.8", "757.6"},
		},
		{
			name:  "a month spelled out names the record for it, not one dated in it",
			asked: "how much do i owe for november", data: `{"invoices":[
				{"number":"INV-11","month":"November 2026","total":{"amount":2135,"currency":"USD"},"due":"2026-12-05","status":"unpaid"},
				{"number":"INV-10","month":"October 2026","total":{"amount":2090,"currency":"USD"},"due":"2026-11-05","status":"paid"},
				{"number":"INV-09","month":"September 2026","total":{"amount":2165,"currency":"USD"},"due":"2026-10-05","status":"paid"}]}`,
			mentions: []string{"2,135"}, excludes: []string{"2,090", "2,165"},
		},
		{
			name:  "what is owed is the records not paid, and their sum",
			asked: "how much do i owe in tickets", data: `{"citations":[
				{"citation_no":"PC-1","violation":"Expired meter","fine":{"amount":47,"currency":"USD"},"status":"open"},
				{"citation_no":"PC-2","violation":"Street cleaning","fine":{"amount":52,"currency":"USD"},"status":"paid"},
				{"citation_no":"PC-3","violation":"Bus zone","fine":{"amount":39.5,"currency":"USD"},"status":"open"}]}`,
			mentions: []string{"$86.50 in all"}, excludes: []string{"Street cleaning"},
		},
		{
			name:  "a follow-up asking for records of the earlier thing none is for says so",
			asked: "is there a loan for it", earlier: "how do i renew my tent", data: `{"loans":[
				{"title":"Dune","due":"2026-12-01"},
				{"title":"Emma","due":"2026-12-04"}]}`,
			mentions: []string{"no loan for your tent"}, excludes: []string{"Dune", "Emma"},
		},
		{
			name:  "money paid to the user is not owed",
			asked: "do i owe anything on my claims", data: `{"claims":[
				{"claim_no":"CL-1","refund":{"amount":120,"currency":"USD"},"status":"open"},
				{"claim_no":"CL-2","rebate":{"amount":80,"currency":"USD"},"status":"open"},
				{"claim_no":"CL-3","excess":{"amount":50,"currency":"USD"},"status":"open"}]}`,
			excludes: []string{"in all"},
		},
		{
			name:  "a total asked sums every record shown",
			asked: "what do my subscriptions cost altogether", data: `{"subscriptions":[
				{"name":"Netflix","price":{"amount":15.49,"currency":"USD"}},
				{"name":"Spotify","price":{"amount":11.99,"currency":"USD"}}]}`,
			mentions: []string{"$27.48 in all"},
		},
		{
			name:  "a lapsed record named is still shown",
			asked: "when did my zone 9 permit expire", data: `{"permits":[
				{"permit_no":"RP-1","zone":"Zone 14","expires":"2026-12-31","status":"active"},
				{"permit_no":"RP-2","zone":"Zone 9","expires":"2025-12-31","status":"expired"}]}`,
			mentions: []string{"Zone 9"},
		},
		{
			name:  "a list item shows an object of one member, and the facts asked for before the bound",
			asked: "which dentist are the visits with", data: `{"visits":[
				{"kind":"Cleaning","when":"2026-12-03","clinic":"Brightsmile","room":"4","chair":"B","state":"booked","dentist":{"name":"Dr. Osei"}},
				{"kind":"Filling","when":"2026-06-12","clinic":"Brightsmile","room":"2","chair":"A","state":"completed","dentist":{"name":"Dr. Brandt"}}]}`,
			mentions: []string{"dentist Dr. Osei", "dentist Dr. Brandt"},
		},
		{
			name:  "what comes next is not what is over",
			asked: "when is my next appointment", data: `{"appointments":[
				{"kind":"Cleaning","when":"2026-12-03","state":"booked"},
				{"kind":"Filling","when":"2026-06-12","state":"completed"},
				{"kind":"Crown fitting","when":"2027-01-14","state":"booked"}]}`,
			mentions: []string{"Cleaning"}, excludes: []string{"Filling", "Crown fitting"}, // the next of those to come
		},
		{
			name:  "a word that only says which of the list's things may be said otherwise by them",
			asked: "is my boston flight on time", data: `{"flights":[{"number":"DL 1432","from":"SFO","to":"BOS","status":"scheduled"}]}`,
			mentions: []string{"no flight for your boston", "DL 1432"},
		},
		{
			name:  "the record that carries the most of the request's telling words",
			asked: "has the garmin strap shipped", data: `{"orders":[
				{"item":"Nike Pegasus 41","status":"shipped"},{"item":"Balega socks","status":"delivered"},
				{"item":"Garmin HRM-Pro heart-rate strap","status":"processing"}]}`,
			mentions: []string{"Garmin"}, excludes: []string{"Pegasus"},
		},
		{
			name:  "an object two levels down is read, and a wrapper of one object adds no prefix",
			asked: "when was the lunch card last topped up", data: `{"lunch_account":{"balance":{"amount":6.25,"currency":"USD"},
				"last_top_up":{"amount":{"amount":40,"currency":"USD"},"on":"2026-10-30"}}}`,
			mentions: []string{"last top up on Oct 30", "$40.00"}, excludes: []string{"lunch account"},
		},
		{
			name:  "a fact asked for leaves out the lists the request names nothing of",
			asked: "is it on autopay", data: `{"statement":{"total":{"amount":72.5,"currency":"USD"},"autopay":false,
				"charges":[{"description":"Roaming","amount":{"amount":10,"currency":"USD"}},{"description":"Plan","amount":{"amount":60,"currency":"USD"}}]}}`,
			mentions: []string{"no autopay"}, excludes: []string{"Roaming", "$72.50"},
		},
		{
			name:  "a fact asked for keeps a list the request names a record of",
			asked: "how much data has sam used this cycle", data: `{"cycle":{"started":"2026-11-14","resets":"2026-12-14"},
				"lines":[{"owner":"Alice","data_used_gb":17.2},{"owner":"Sam","data_used_gb":3.1}]}`,
			mentions: []string{"3.1"}, excludes: []string{"17.2"},
		},
		{
			name:  "a fact of the one record named by its head word leaves out the record's lists",
			asked: "who is maya's teacher", data: `{"children":[
				{"name":"Maya","teacher":"Ms. Alvarez","subjects":[{"subject":"Math","mark":"A-"},{"subject":"Science","mark":"B+"}]},
				{"name":"Leo","teacher":"Mr. Park","subjects":[{"subject":"Math","mark":"B"}]}]}`,
			mentions: []string{"Ms. Alvarez"}, excludes: []string{"A-", "Mr. Park"},
		},
		{
			name:  "when every label names a word asked, the one naming most is asked for",
			asked: "when does my cycle reset", data: `{"cycle":{"started":"2026-11-14","resets":"2026-12-14"},
				"lines":[{"owner":"Alice","data_used_gb":17.2},{"owner":"Sam","data_used_gb":3.1}]}`,
			mentions: []string{"Dec 14"}, excludes: []string{"Nov 14", "Alice"},
		},
		{
			name:  "a thing as close in meaning to every record as to any is none of them",
			asked: "when does my tesla need service", data: `{"vehicles":[{"nickname":"the Civic","make":"Honda"},{"nickname":"the truck","make":"Ford"}]}`,
			mentions: []string{"no vehicle for your tesla"}, excludes: []string{"Honda", "Ford"},
		},
		{
			name:  "a thing close in meaning to one record of several may be it",
			asked: "did i get my refund for the shoes", data: `{"returns":[{"item":"Adidas Ultraboost","status":"refunded"},{"item":"Kettle","status":"pending"}]}`,
			excludes: []string{"no return for"},
		},
		{
			name:  "the thing named is missing though another word of the request picks a record",
			asked: "has the kettle i ordered shipped", data: `{"orders":[{"item":"Nike Pegasus 41","status":"shipped"},{"item":"Balega socks","status":"delivered"}]}`,
			mentions: []string{"no order for the kettle"}, excludes: []string{"Pegasus"},
		},
		{
			name:  "the subject's words pick the record before the state asked about",
			asked: "is the electric bill paid", data: bills,
			mentions: []string{"CityPower"}, excludes: []string{"AquaWater", "FiberNet"},
		},
		{
			name:  "a code written with other marks is the record's",
			asked: "whens the brake check on the f150", data: cars,
			mentions: []string{"Brake inspection"}, excludes: []string{"no vehicle", "Oil change"},
		},
		{
			name:  "a month names the records dated in it, before the state asked about",
			asked: "is my february leave approved", data: `{"requests":[
				{"type":"vacation","from":"2026-12-22","status":"approved"},{"type":"vacation","from":"2027-02-16","status":"pending"}]}`,
			mentions: []string{"Feb 16", "pending"}, excludes: []string{"Dec 22"},
		},
		{
			name:  "the last one is the latest dated record, with its own lists",
			asked: "how much tax came out of my last paycheck", data: `{"payslips":[
				{"period":"Oct 16 to Oct 31","paid_on":"2026-10-31","net":{"amount":2200,"currency":"USD"},"deductions":[{"kind":"Federal tax","amount":{"amount":440,"currency":"USD"}}]},
				{"period":"Nov 1 to Nov 15","paid_on":"2026-11-15","net":{"amount":2262.5,"currency":"USD"},"deductions":[{"kind":"Federal tax","amount":{"amount":465,"currency":"USD"}}]}]}`,
			mentions: []string{"Nov 1 to Nov 15", "$465.00"}, excludes: []string{"Oct 16", "$440.00"},
		},
		{
			name:  "a follow-up of a request for the last one is about the latest",
			asked: "how much tax came out of it", earlier: "what did i take home on my last paycheck", data: `{"payslips":[
				{"period":"Oct 16 to Oct 31","paid_on":"2026-10-31","net":{"amount":2200,"currency":"USD"},"deductions":[{"kind":"Federal tax","amount":{"amount":440,"currency":"USD"}}]},
				{"period":"Nov 1 to Nov 15","paid_on":"2026-11-15","net":{"amount":2262.5,"currency":"USD"},"deductions":[{"kind":"Federal tax","amount":{"amount":465,"currency":"USD"}}]}]}`,
			mentions: []string{"$465.00"}, excludes: []string{"$440.00"},
		},
		{
			name:  "a follow-up is about the kind of records its earlier request asked for",
			asked: "when is it due", earlier: "how much do i owe the lab", data: `{"bills":[
				{"bill_no":"CL-1","you_owe":{"amount":32,"currency":"USD"},"due":"2026-12-10","status":"unpaid"},
				{"bill_no":"CL-2","you_owe":{"amount":42.8,"currency":"USD"},"due":"2026-05-25","status":"paid"}]}`,
			mentions: []string{"Dec 10"}, excludes: []string{"May 25"},
		},
		{
			name:  "last month names a time, not the latest record",
			asked: "what did i spend last month", data: `{"transactions":[
				{"merchant":"Grocer","date":"2026-10-30"},{"merchant":"Cafe","date":"2026-11-02"}]}`,
			mentions: []string{"Grocer", "Cafe"},
		},
		{
			name:  "the one fact beside a list, asked for, is the answer",
			asked: "when is my next payday", data: `{"next_payday":"2026-11-30","payslips":[
				{"period":"Oct 16 to Oct 31","net":{"amount":2200,"currency":"USD"}},{"period":"Nov 1 to Nov 15","net":{"amount":2262.5,"currency":"USD"}}]}`,
			mentions: []string{"Nov 30, 2026"}, excludes: []string{"Oct 16", "$2,200.00"},
		},
		{
			name:  "what follows the list's noun and for says which record, and none is",
			asked: "do i have tickets for taylor swift", data: `{"tickets":[{"event":"Phoebe Bridgers","date":"2026-12-12"},{"event":"Hamilton","date":"2027-01-23"}]}`,
			mentions: []string{"no ticket for taylor swift"}, excludes: []string{"Hamilton", "Phoebe"},
		},
		{
			name:  "a follow-up that names no fact is about the one the earlier request named",
			asked: "can you change it", earlier: "what's my shipping address",
			data:     `{"name":"Alice Johnson","email":"a@example.com","shipping_address":"221 Harbor Way"}`,
			mentions: []string{"221 Harbor Way"}, excludes: []string{"a@example.com"},
		},
		{
			name:  "a follow-up asking a question of its own is not narrowed by the earlier one",
			asked: "and how much do i still owe on it", earlier: "how much is my car payment",
			data:     `{"monthly_payment":{"amount":312.4,"currency":"USD"},"remaining_balance":{"amount":6820.55,"currency":"USD"}}`,
			mentions: []string{"$6,820.55"},
		},
		{
			name:  "an id asked for is shown, though its key says only id",
			asked: "whats my order number for the socks", data: `{"orders":[{"id":"A-10231","item":"Nike Pegasus 41","status":"shipped"},{"id":"A-10198","item":"Balega socks","status":"delivered"}]}`,
			mentions: []string{"A-10198"}, excludes: []string{"A-10231"},
		},
		{
			name:  "an id not asked for stays hidden",
			asked: "where are my socks", data: `{"orders":[{"id":"A-10231","item":"Nike Pegasus 41","status":"shipped"},{"id":"A-10198","item":"Balega socks","status":"delivered"}]}`,
			mentions: []string{"Balega"}, excludes: []string{"A-10198"},
		},
		{
			name:  "a word that only qualifies the list's thing, past words of the trade, shows the records",
			asked: "when does my blue parking permit run out", data: `{"permits":[{"permit_no":"RP-1","kind":"Zone 14 resident","expires":"2026-12-31"},{"permit_no":"VP-2","kind":"Visitor day passes","expires":"2026-12-31"}]}`,
			mentions: []string{"no permit for your blue, only 2 permits", "Zone 14 resident"},
		},
		{
			name:  "a word only some records have a member for picks them, and a count left reads first",
			asked: "how many guest passes have i got left", data: `{"permits":[
				{"permit_no":"RP-1","kind":"Zone 14 resident","expires":"2026-12-31"},
				{"permit_no":"VP-2","kind":"Visitor day","expires":"2026-12-31","passes":{"total":20,"left":6}}]}`,
			mentions: []string{"VP-2", "6 passes left"}, excludes: []string{"RP-1"},
		},
		{
			name:  "the last one of records some done and some booked is the latest done",
			asked: "when was my last visit", data: `{"visits":[
				{"kind":"Cleaning","when":"2026-12-03","state":"booked"},{"kind":"Filling","when":"2026-06-12","state":"completed"},
				{"kind":"Check-up","when":"2026-01-10","state":"completed"}]}`,
			mentions: []string{"Filling"}, excludes: []string{"Cleaning", "Check-up"},
		},
		{
			name:  "a word followed by of names what of a thing, not a thing",
			asked: "whats my share of the crown going to be", data: `{"treatments":[
				{"procedure":"Crown, lower left molar","you_pay":{"amount":625,"currency":"USD"}},{"procedure":"Teeth whitening","you_pay":{"amount":380,"currency":"USD"}}]}`,
			mentions: []string{"$625.00"}, excludes: []string{"no treatment for", "$380.00"},
		},
		{
			name:  "a false quality reads not, a false thing no",
			asked: "what are my loans", data: `{"loans":[{"title":"Dune","overdue":false,"has_audio":false,"autopay":false,"in_stock":false,"handed_in":false}]}`,
			mentions: []string{"not overdue", "no audio", "no autopay", "not in stock", "not handed in"},
		},
		{
			name:  "a word of the object around a list is no missing thing of the list",
			asked: "has there been any delay on my remodel", data: `{"name":"Kitchen remodel","start":"2026-09-14",
				"delays":[{"cause":"Backordered cabinet hardware","days":5}]}`,
			mentions: []string{"Backordered cabinet hardware"}, excludes: []string{"no delay for"},
		},
		{
			name:  "an amount named by its label leaves out the record's other amounts",
			asked: "how much do i owe on it", data: `{"bills":[
				{"bill_no":"CL-1","charges":{"amount":186,"currency":"USD"},"insurance":{"paid":{"amount":121.4,"currency":"USD"}},
				 "you_owe":{"amount":32,"currency":"USD"},"service_date":"2026-10-06","due":"2026-12-10","status":"unpaid"}]}`,
			mentions: []string{"you owe $32.00", "Dec 10"}, excludes: []string{"$186.00", "$121.40"},
		},
		{
			name:  "a superlative picks the record with the extreme of the number it names",
			asked: "which of my loans has the highest interest rate", data: `{"loans":[
				{"type":"Direct Subsidized","interest_rate":3.76,"balance":{"amount":2118.44,"currency":"USD"}},
				{"type":"Grad PLUS","interest_rate":7.6,"balance":{"amount":19240.77,"currency":"USD"}},
				{"type":"Direct Unsubsidized","interest_rate":4.45,"balance":{"amount":4870.12,"currency":"USD"}}]}`,
			mentions: []string{"Grad PLUS"}, excludes: []string{"Subsidized", "no loan for"},
		},
		{
			name:  "a superlative of price reads the records' amounts",
			asked: "which is the cheapest", data: `{"offers":[
				{"seller":"Acme","price":{"amount":89.9,"currency":"USD"}},{"seller":"Bolt","price":{"amount":79,"currency":"USD"}}]}`,
			mentions: []string{"Bolt"}, excludes: []string{"Acme"},
		},
		{
			name:  "the bound on an object's facts keeps those asked for",
			asked: "is autopay turned on for my dues", data: `{"account_no":"WC-1","owner":"Alice","lot":"Lot 112",
				"dues":{"amount":{"amount":285,"currency":"USD"},"frequency":"quarterly","next_due":"2027-01-01","grace_period_days":15,"late_fee":{"amount":35,"currency":"USD"}},
				"balance":{"amount":120,"currency":"USD"},"autopay":{"enabled":false},
				"charges":[{"description":"Q4 dues","amount":{"amount":285,"currency":"USD"}}]}`,
			mentions: []string{"autopay not enabled"},
		},
		{
			name:  "asked what is owed, the balance is the answer, not the amounts beside it",
			asked: "how much do i owe right now", data: `{"account":{"owner":"Alice","dues":{"amount":{"amount":285,"currency":"USD"},"frequency":"quarterly"},
				"balance":{"amount":120,"currency":"USD"}}}`,
			mentions: []string{"$120.00"}, excludes: []string{"$285.00"},
		},
		{
			name:  "an amount asked for comes with the date its label shares a word with",
			asked: "do i owe them money", data: `{"account":{"balance_due":{"amount":95,"currency":"USD"},"due_date":"2026-12-20",
				"last_payment":{"amount":{"amount":40,"currency":"USD"},"paid_on":"2026-11-02"}}}`,
			mentions: []string{"$95.00", "Dec 20"}, excludes: []string{"$40.00"},
		},
		{
			name:  "an object every list of which holds nothing about the thing named holds nothing about it",
			asked: "what time does the music have to stop", data: `{"owner":"Alice","lot":"Lot 112",
				"charges":[{"description":"Key fob","amount":{"amount":45,"currency":"USD"}}],
				"assessments":[{"name":"Roof","total":{"amount":300,"currency":"USD"}}]}`,
			mentions: []string{"couldn't find anything about the music"}, excludes: []string{"Lot 112", "no charge for"},
		},
		{
			name:  "the name of a missing thing ends before a preposition",
			asked: "is there a discount because of the delay", data: `{"delays":[{"cause":"Backordered hardware","days":5},{"cause":"Rain","days":2}]}`,
			mentions: []string{"no delay for discount"}, excludes: []string{"because"},
		},
		{
			name:  "a question when reads the dates of a record's objects",
			asked: "when do i go in", data: `{"orders":[
				{"ordered_by":"Dr. Liu","ordered_on":"2026-11-18","tests":["Lipid panel"],"fasting":{"required":true,"hours":12},"status":"scheduled",
				 "appointment":{"date":"2026-12-02","time":"07:45","place":"Hawthorne"}},
				{"ordered_by":"Dr. Ortiz","ordered_on":"2026-10-02","tests":["TSH"],"fasting":{"required":false},"status":"completed"}]}`,
			mentions: []string{"appointment on Dec 2"},
		},
		{
			name:  "a follow-up's earlier words that name a record of a list keep the list beside the fact asked",
			asked: "did i sign it yet", earlier: "what will the waterfall edge change cost me", data: `{"contract":{"signed":"2026-08-21"},
				"change_orders":[{"description":"Subfloor repair","status":"approved"},{"description":"Waterfall edge on the island","status":"awaiting your signature"}]}`,
			mentions: []string{"awaiting your signature"}, excludes: []string{"Subfloor"},
		},
		{
			name:  "the word after is names a thing no record may be about",
			asked: "when is dune due back", data: `{"loans":[{"title":"The Midnight Library","due":"2026-12-04"},{"title":"Emma","due":"2026-11-20"}]}`,
			mentions: []string{"no loan for dune"}, excludes: []string{"Emma"},
		},
		{
			name:  "a list holding nothing about the thing named is left out beside a fact that answers",
			asked: "how much have we paid the contractor so far", data: `{"paid_to_date":{"amount":34200,"currency":"USD"},"signed":"2026-08-21",
				"invoices":[{"invoice_no":"INV-1","amount":{"amount":13680,"currency":"USD"},"status":"paid"},{"invoice_no":"INV-2","amount":{"amount":20520,"currency":"USD"},"status":"not yet issued"}],
				"change_orders":[{"description":"Subfloor","cost":{"amount":640,"currency":"USD"}},{"description":"Sink","cost":{"amount":2350,"currency":"USD"}}]}`,
			mentions: []string{"$34,200.00"}, excludes: []string{"no change order"},
		},
		{
			name:  "a participle after is names no thing",
			asked: "who is leading the drywall crew", data: `{"name":"Remodel","phases":[{"name":"Drywall","crew_lead":"Tyler"},{"name":"Tile","crew_lead":"Marco"}],
				"delays":[{"cause":"Hardware","days":5}]}`,
			mentions: []string{"Tyler"}, excludes: []string{"for leading"},
		},
		{
			name:  "a question when of an object that names none of its words is answered by its dates",
			asked: "when will it be finished", data: `{"project":{"name":"Kitchen remodel","address":"3120 SE Alder St","manager":"Dana Okafor",
				"as_of":"2026-11-26","start":"2026-09-14","target_completion":"2027-01-22"}}`,
			mentions: []string{"Jan 22, 2027"}, excludes: []string{"Alder", "Dana", "Nov 26"},
		},
		{
			name:  "a word of the trade deep in one record says nothing of which record it is",
			asked: "how many park permits do i have", data: `{"permits":[
				{"permit_no":"RP-1","zone":"Zone 14","office":{"name":"Park Street office"}},{"permit_no":"RP-2","zone":"Zone 9"}]}`,
			mentions: []string{"2 permits"}, excludes: []string{"1 of 2"},
		},
		{
			name:  "a state after the list's noun and in that no record is in is said to be no one's",
			asked: "are any of my claims in arbitration", data: `{"claims":[{"claim_id":"C-1","status":"approved"},
				{"claim_id":"C-2","status":"denied"},{"claim_id":"C-3","status":"in review"}]}`,
			mentions: []string{"no claim for arbitration"}, excludes: []string{"C-1"},
		},
		{
			name:  "a state after in that a record is in picks that record",
			asked: "are any of my claims in review", data: `{"claims":[{"claim_id":"C-1","status":"approved"},
				{"claim_id":"C-2","status":"denied"},{"claim_id":"C-3","status":"in review"}]}`,
			mentions: []string{"C-3"}, excludes: []string{"C-1", "no claim"},
		},
		{
			name:  "a word qualifying the list's noun picks the record whose name it says in other words",
			asked: "whats the deductible on the house policy", data: `{"policies":[
				{"name":"Home","deductible":500,"covers":["fire","theft"]},{"name":"Car","deductible":750,"covers":["collision","theft"]}]}`,
			mentions: []string{"Home", "500"}, excludes: []string{"Car", "no policy"},
		},
		{
			name:  "a word qualifying the list's noun that no record's name comes near picks none",
			asked: "is my boston flight on time", data: `{"flights":[
				{"flight":"UA 837","from":"SFO","to":"NRT","status":"on time"},{"flight":"AA 2211","from":"SFO","to":"ORD","status":"scheduled"}]}`,
			mentions: []string{"no flight for your boston, only 2 flights"},
		},
		{
			name:  "a general state after in is no state of the records' own",
			asked: "any claims in progress", data: `{"claims":[{"claim_id":"C-1","status":"approved"},
				{"claim_id":"C-2","status":"denied"},{"claim_id":"C-3","status":"in review"}]}`,
			excludes: []string{"no claim"},
		},
		{
			name:  "a question where shows first the facts whose labels say where",
			asked: "where is it", data: `{"orders":[
				{"order_id":"LO-1","ordered_by":"Dr. Liu","ordered_on":"2026-11-18","tests":["Lipid panel","A1c","Metabolic panel"],
				 "fasting":{"required":true,"hours":12,"note":"Water and black coffee are fine"},
				 "appointment":{"date":"2026-12-02","time":"07:45","location":{"name":"Clearpath Labs","address":"3725 SE Hawthorne Blvd"}},"status":"scheduled"}]}`,
			mentions: []string{"3725 SE Hawthorne Blvd"},
		},
		{
			name:  "a typo of the trade's own word is no missing thing",
			asked: "how much do i owe the libary in fines", data: `{"loans":[{"title":"Dune","fine":{"amount":3.5,"currency":"USD"}}]}`,
			mentions: []string{"$3.50"}, excludes: []string{"no loan for"},
		},
		{
			name:  "a list's dates keep their year, even when they all share one",
			asked: "when do the warranties on my devices run out", data: `{"devices":[
				{"ear":"left","serial":"PH-1","fitted":"2025-02-18","repair_warranty":{"ends":"2028-02-18"}},
				{"ear":"right","serial":"PH-2","fitted":"2025-02-18","repair_warranty":{"ends":"2028-02-18"}}]}`,
			mentions: []string{"Feb 18, 2028"},
		},
		{
			name:  "a price asked of a record that holds none is said not to be there",
			asked: "how much is a new charger case", data: `{"accessories":[
				{"name":"Charger Case Combi","serial":"CC-80213","warranty_ends":"2027-02-18"},
				{"name":"TV Connector","serial":"TV-11822","warranty_ends":"2026-08-18"}]}`,
			mentions: []string{"couldn't find a price for the Charger Case Combi"}, excludes: []string{"CC-80213", "TV Connector"},
		},
		{
			name:  "how much of a thing is no price",
			asked: "and how much has sam used", data: `{"lines":[{"name":"Sam","used_gb":3.1},{"name":"Alex","used_gb":9.4}]}`,
			mentions: []string{"3.1"},
		},
		{
			name:  "a little word that is a record's whole value names it",
			asked: "serial number of my right hearing aid?", data: `{"devices":[
				{"ear":"left","model":"Audeo L90","serial":"PH-4471203"},{"ear":"right","model":"Audeo L90","serial":"PH-4471219"}],
				"accessories":[{"name":"TV Connector","serial":"TV-11822"}]}`,
			mentions: []string{"PH-4471219"}, excludes: []string{"PH-4471203"},
		},
		{
			name:  "a short little word that is a record's whole value names none",
			asked: "show me all my coupons", data: `{"coupons":[{"code":"SAVE10","applies_to":"all"},{"code":"TECH20","applies_to":"electronics"}]}`,
			mentions: []string{"SAVE10", "TECH20"},
		},
		{
			name:  "a small number the request states counts, and names no record",
			asked: "what are my 2 bills", data: `{"bills":[
				{"provider":"CityPower","address":"12 Elm St, Suite 2","status":"unpaid"},
				{"provider":"AquaWater","address":"40 Oak Ave","status":"paid"}]}`,
			mentions: []string{"CityPower", "AquaWater"},
		},
		{
			name:  "a follow-up whose own words name nothing is answered by the list its earlier words named",
			asked: "how much is coming across", earlier: "did my old aviva pension transfer over yet", data: `{"plan":"Northstar",
				"pot_value":{"amount":48213.77,"currency":"USD"},"beneficiaries":[{"name":"Dana Whitfield","share_percent":70}],
				"transfers_in":[{"provider":"Aviva Pension Trust","value":{"amount":6120.4,"currency":"USD"},"status":"in progress"}]}`,
			mentions: []string{"$6,120.40"}, excludes: []string{"48,213.77", "Dana"},
		},
		{
			name:  "a price asked of facts no label says it of is the money of the earlier request's thing",
			asked: "how much does that cost", earlier: "can i stay over the break", data: `{"building":"Maple Hall","room":"312B",
				"roommate":{"name":"Priya Raman","email":"praman@example.edu"},"move_in":"2026-08-22",
				"winter_break":{"halls_close":"2026-12-19T12:00","stay_over_request":{"status":"not submitted","deadline":"2026-12-05","fee":{"amount":180,"currency":"USD"}}},
				"meal_plan":{"name":"Blue 14","dining_dollars":{"balance":{"amount":87.25,"currency":"USD"}}}}`,
			mentions: []string{"$180.00"}, excludes: []string{"$87.25", "Priya"},
		},
		{
			name:  "a list item shows an object of its own when the request names a member of it",
			asked: "whats the deductible", data: `{"devices":[
				{"ear":"left","model":"Audeo L90","serial":"PH-1","color":"champagne","fitted":"2025-02-18",
				 "loss_and_damage":{"ends":"2027-02-18","deductible":{"amount":250,"currency":"USD"}}},
				{"ear":"right","model":"Audeo L90","serial":"PH-2","color":"champagne","fitted":"2025-02-18",
				 "loss_and_damage":{"ends":"2027-02-18","deductible":{"amount":250,"currency":"USD"}}}]}`,
			mentions: []string{"deductible $250.00"},
		},
		{
			name:  "facts named by two words of the request are the answer beside a list it names",
			asked: "how bad is the hearing in my left ear", data: `{"appointments":[
				{"type":"annual hearing test","date":"2026-12-09T10:30","status":"booked"},
				{"type":"fine tuning","date":"2026-09-09T09:00","status":"attended","notes":"Softer high pitches on the left aid"}],
				"last_hearing_test":{"date":"2025-12-02","left_ear":{"average_loss_db":48,"degree":"moderate"},
				"right_ear":{"average_loss_db":35,"degree":"mild"}}}`,
			mentions: []string{"moderate"}, excludes: []string{"mild"},
		},
		{
			name:  "an amount the request states names the record holding it",
			asked: "why was i charged 75 bucks", data: `{"charges":[
				{"description":"Fall housing","amount":{"amount":4350,"currency":"USD"}},
				{"description":"Damage fine: wall paint pulled off by tape","amount":{"amount":75,"currency":"USD"}},
				{"description":"Laundry card top-up","amount":{"amount":40,"currency":"USD"}}]}`,
			mentions: []string{"tape"}, excludes: []string{"Fall housing", "Laundry"},
		},
		{
			name:  "a rate per unit is no record's price, nor part of a sum",
			asked: "how much did the fill ups cost in total", data: `{"fill_ups":[
				{"station":"Shell","price_per_gallon":{"amount":4.19,"currency":"USD"},"amount":{"amount":89.67,"currency":"USD"},"gallons":21.4},
				{"station":"Costco","price_per_gallon":{"amount":3.99,"currency":"USD"},"amount":{"amount":99.75,"currency":"USD"},"gallons":25}]}`,
			mentions: []string{"$189.42 in all", "Shell: $89.67"}, excludes: []string{"$8.18"},
		},
		{
			name:  "a month names the record for it, not another paid in it",
			asked: "is the october statement paid", data: `{"statements":[
				{"statement_no":"ST-2610","period":"2026-10","total":{"amount":1842.3,"currency":"USD"},"due":"2026-11-20","status":"overdue"},
				{"statement_no":"ST-2609","period":"2026-09","total":{"amount":1710.05,"currency":"USD"},"due":"2026-10-20","status":"paid","paid_on":"2026-10-18"}]}`,
			mentions: []string{"overdue"}, excludes: []string{"1,710.05"},
		},
		{
			name:  "an id asked for by its key's own words is shown",
			asked: "whats my pension member number", data: `{"plan":"Northstar Workplace Pension","member_id":"NS-552031",
				"employer":"Halverson Logistics","status":"active","beneficiaries":[{"name":"Dana","share_percent":70}]}`,
			mentions: []string{"NS-552031"},
		},
		{
			name:  "a follow-up naming no thing asks for the facts its earlier words named",
			asked: "how many am i getting", earlier: "when are the moving boxes getting dropped off", data: `{"date":"2026-12-05",
				"status":"confirmed","crew":{"lead":"Tomas Reyes","movers":3},"packing":{"boxes":25,"box_delivery":"2026-11-29"},
				"inventory":[{"room":"Bedroom","items":["bed","dresser"]},{"room":"Office","items":["desk"]}]}`,
			mentions: []string{"boxes 25"}, excludes: []string{"Tomas Reyes", "Bedroom"},
		},
		{
			name:  "a follow-up naming a thing of the trade asks for it, not the earlier facts",
			asked: "how many loans is that", earlier: "what's my total loan balance", data: `{"total_balance":{"amount":26373.84,"currency":"USD"},
				"loans":[{"name":"Direct Subsidized","principal":{"amount":2118.44,"currency":"USD"}},
				{"name":"Grad PLUS","principal":{"amount":19240.77,"currency":"USD"}}]}`,
			mentions: []string{"Grad PLUS"},
		},
		{
			name:  "a follow-up naming no thing after words naming a list asks about its record",
			asked: "where is that", earlier: "when's my next hearing appointment", data: `{"appointments":[
				{"type":"annual hearing test","date":"2026-12-09T10:30","status":"booked","clinic":"ClearTone Westgate"},
				{"type":"fine tuning","date":"2026-09-09T09:00","status":"attended"}],
				"last_hearing_test":{"date":"2025-12-02","left_ear":{"average_loss_db":48}}}`,
			mentions: []string{"ClearTone Westgate"},
		},
		{
			name:  "a follow-up asking when gets the dates of what the earlier request was answered with",
			asked: "when do i need to settle it", earlier: "how much do i still owe the plumber", data: `{"quote_no":"Q-77",
				"total":{"amount":900,"currency":"USD"},"deposit":{"amount":{"amount":200,"currency":"USD"},"paid_on":"2026-10-02",
				"refundable_until":"2026-10-20"},"balance_due":{"amount":700,"currency":"USD"},"balance_due_on":"2026-11-14",
				"warranty":{"ends":"2027-11-14"}}`,
			mentions: []string{"Nov 14, 2026"}, excludes: []string{"Oct 20", "Oct 2,", "2027"},
		},
		{
			name:  "how long one has asks for the deadline, not the record's other dates",
			asked: "how long have i got to sort it out", data: `{"notices":[
				{"notice_no":"N-31","rule":"Hedge over the footpath","section":"Bylaw 12.4","logged":"2026-10-02","status":"open",
				 "fine":{"amount":40,"currency":"USD"},"reply_by":"2026-11-20","panel":{"date":"2026-12-01","room":"Hall B"}},
				{"notice_no":"N-12","rule":"Bins left out","section":"Bylaw 3.1","logged":"2026-09-12","status":"open",
				 "fine":{"amount":25,"currency":"USD"},"reply_by":"2026-11-09","panel":{"date":"2026-12-03","room":"Hall B"}}]}`,
			mentions: []string{"Nov 20, 2026", "Nov 9, 2026"}, excludes: []string{"Dec 1,", "Dec 3,"},
		},
		{
			name:  "a question why shows each record's own lines",
			asked: "how come the water bill went up", data: `{"bills":[
				{"bill_no":"W-12","period":"December 2026","total":{"amount":96,"currency":"USD"},
				 "charges":[{"item":"Water use, 9 units","amount":{"amount":81,"currency":"USD"}},{"item":"Leak inspection","amount":{"amount":15,"currency":"USD"}}]},
				{"bill_no":"W-11","period":"November 2026","total":{"amount":72,"currency":"USD"},
				 "charges":[{"item":"Water use, 8 units","amount":{"amount":72,"currency":"USD"}}]}]}`,
			mentions: []string{"Leak inspection", "Water use, 8 units"},
		},
		{
			name:  "a verb of the request names the facts its noun in -ment labels",
			asked: "can i pay with crypto", data: `{"invoice_no":"B-4","issued":"2026-10-01","amount_due":{"amount":310,"currency":"USD"},
				"late_fee":{"amount":20,"currency":"USD"},"payment_options":["direct debit","cheque"]}`,
			mentions: []string{"direct debit"}, excludes: []string{"$20.00"},
		},
		{
			name:  "a question when with a verb names the facts of its noun in -ment, date and amount",
			asked: "when did we last pay the vet", data: `{"balance_owed":{"amount":95,"currency":"USD"},"statement_date":"2026-12-01",
				"most_recent_payment":{"amount":{"amount":60,"currency":"USD"},"received":"2026-10-14"}}`,
			mentions: []string{"$60.00", "Oct 14, 2026"}, excludes: []string{"Dec 1,"},
		},
		{
			name:  "a word of price asks for the amounts of the thing the other words name",
			asked: "what am i paying for the locker spot", data: `{"locker":"L-3","level":"B1","space":"12",
				"monthly_fee":{"amount":20,"currency":"USD"},"renews":"2026-12-01"}`,
			mentions: []string{"$20.00"}, excludes: []string{"12."},
		},
		{
			name:  "a place's number is said with the places that hold it",
			asked: "which room is mine", data: `{"term":"Spring 2027","building":"Oak House","room":"12C","floor":1,"meal_plan":"Gold 10"}`,
			mentions: []string{"Oak House", "12C"}, excludes: []string{"Gold", "Spring"},
		},
		{
			name:  "the next one asked for is the first of those still to come",
			asked: "when is my next class", data: `{"classes":[{"name":"Spin","on":"2026-12-10","status":"booked"},
				{"name":"Yoga","on":"2026-12-03","status":"booked"},{"name":"Pilates","on":"2026-11-20","status":"completed"}]}`,
			mentions: []string{"Yoga"}, excludes: []string{"Spin", "Pilates"},
		},
		{
			name:  "the next ones asked for are all those still to come",
			asked: "when are my next classes", data: `{"classes":[{"name":"Spin","on":"2026-12-10","status":"booked"},
				{"name":"Yoga","on":"2026-12-03","status":"booked"},{"name":"Pilates","on":"2026-11-20","status":"completed"}]}`,
			mentions: []string{"Yoga", "Spin"}, excludes: []string{"Pilates"},
		},
		{
			name:  "the facts a question asks for are kept when an object's facts are bounded beside its lists",
			asked: "when does my climbing membership renew", data: `{"member":{"name":"Alice","number":"GW-2","home":"Bermondsey","joined":"2024-02-17"},
				"plan":{"name":"Unlimited","status":"active","peak_access":true,"price":{"amount":56,"currency":"GBP"},"method":"direct debit",
				 "day_of_month":1,"next_payment":"2026-12-01"},
				"skills":[{"skill":"lead belaying","status":"not signed off","next_step":"take the lead climbing course"}]}`,
			mentions: []string{"Dec 1, 2026"},
		},
		{
			name:  "a time of day answers a question when",
			asked: "when are they coming", data: `{"appointments":[
				{"ref":"TR-1","service":"replacement","type":"mobile","status":"confirmed","date":"2026-12-02",
				 "address":"14 Elm Grove","technician":"Craig","slot":{"from":"08:00","until":"10:00"},"price":{"amount":217,"currency":"GBP"}},
				{"ref":"TR-2","service":"alignment","type":"depot","status":"confirmed","date":"2026-12-09","depot":"Kirkstall",
				 "technician":"Sam","price":{"amount":45,"currency":"GBP"},"time":"10:15"}]}`,
			mentions: []string{"08:00", "10:15"},
		},
		{
			name:  "asking the time asks when",
			asked: "what time will they turn up", data: `{"orders":[
				{"order_ref":"CV-1","status":"in production","room":"front bedroom","colour":"grey","glazing":"double",
				 "installation":{"fitters":["Dean","Kyle"],"arrival":"08:00"}},
				{"order_ref":"CV-2","status":"completed","room":"bathroom","colour":"white","glazing":"obscured"}]}`,
			mentions: []string{"08:00"},
		},
		{
			name:  "a list of dates answers a question when as a date does",
			asked: "when are the windows going in", data: `{"orders":[
				{"order_ref":"CV-1","item":"windows","status":"in production","ordered":"2026-11-03","room":"front bedroom","colour":"grey",
				 "glazing":"double","installation":{"dates":["2026-12-14","2026-12-15"],"fitters":["Dean","Kyle"]}},
				{"order_ref":"CV-2","item":"windows","status":"completed","ordered":"2026-05-12","room":"bathroom","colour":"white","glazing":"obscured"}]}`,
			mentions: []string{"Dec 14, 2026"},
		},
		{
			name:  "a list each record holds that the request names is shown for each",
			asked: "what tyres are they putting on", data: `{"appointments":[
				{"ref":"TR-1","service":"replacement","date":"2026-12-02","tyres":[{"position":"front left","brand":"Michelin"},
				 {"position":"front right","brand":"Michelin"}]},
				{"ref":"TR-2","service":"puncture repair","date":"2026-11-14","tyre":{"position":"rear right"}}]}`,
			mentions: []string{"Michelin", "TR-2"},
		},
		{
			name:  "a time of day names no record",
			asked: "when do we play", data: `{"matches":[{"match_id":"M-1","date":"2026-12-06","kickoff":"10:40","opponent":"Dog and Duck FC"},
				{"match_id":"M-2","date":"2026-12-13","kickoff":"11:50","opponent":"Clapham Old Boys"}]}`,
			mentions: []string{"Dog and Duck FC: ", "10:40"}, excludes: []string{"10:40:"},
		},
		{
			name:  "a rate is named by what it is per",
			asked: "what do extra hours cost", data: `{"plan":"Dedicated Desk","hours_included":10,"used":7.5,
				"overage_rate":{"amount":25,"currency":"USD","per":"hour"},"extra_pass_price":{"amount":15,"currency":"USD"},
				"locker_fee":{"amount":20,"currency":"USD"}}`,
			mentions: []string{"$25.00 per hour"}, excludes: []string{"$20.00"},
		},
		{
			name:  "how much alone after a question when asks the amount of what it named",
			asked: "how much", earlier: "when does the climbing wall take my next payment", data: `{"member":"Alice","joined":"2024-02-17",
				"plan":{"name":"Unlimited","price":{"amount":56,"currency":"GBP","per":"month"},"method":"direct debit","next_payment":"2026-12-01"}}`,
			mentions: []string{"56.00 GBP"},
		},
		{
			name:  "who did an act is named by the data's doers of it",
			asked: "who scored", data: `{"results":[
				{"date":"2026-11-22","opponent":"Vauxhall","score":{"for":4,"against":2},"scorers":[{"player":"Priya Shah","goals":2},{"player":"Tom Okafor","goals":2}]},
				{"date":"2026-11-15","opponent":"Kennington","score":{"for":1,"against":3},"scorers":[{"player":"Dan Reeve","goals":1}]}]}`,
			mentions: []string{"Priya Shah", "Dan Reeve"},
		},
		{
			name:  "an id is not shown for a number the request asks of something else",
			asked: "whats my employer's phone number", data: `{"plan":"Northstar Workplace Pension","member_id":"NS-552031",
				"employer":{"name":"Halverson Logistics","phone":"555-0100"}}`,
			mentions: []string{"555-0100"}, excludes: []string{"NS-552031"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decodeOrdered(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			domain := map[string]bool{"library": true, "loan": true, "park": true}
			var call *llms.ToolCall
			if tt.tool != "" {
				call = &llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: tt.tool, Arguments: "{}"}}
			}
			r := newRenderer(5, call, spellAsData(tt.asked, v, domain))
			r.domain = domain
			if tt.earlier != "" {
				r.earlier, r.earlierTerm = tt.earlier, requestTerms(tt.earlier)
			}
			p := r.data(v, topic{})
			got := p.found + "\n" + p.text
			for _, m := range tt.mentions {
				if !strings.Contains(got, m) {
					t.Errorf("data(%q) = %q, want it to mention %q", tt.asked, got, m)
				}
			}
			for _, x := range tt.excludes {
				if strings.Contains(got, x) {
					t.Errorf("data(%q) = %q, want no %q", tt.asked, got, x)
				}
			}
		})
	}
}

func TestSpellAsData(t *testing.T) {
	data := []field{{key: "deductible", val: "500"}, {key: "title", val: "The Midnight Library"}, {key: "city", val: "Seattle"}, {key: "count", val: "4"},
		{key: "technician", val: "Luis Ortega"}, {key: "planned", val: "2026-12-01"}, {key: "scorers", val: "Priya"}}
	domain := map[string]bool{"library": true}
	tests := []struct{ in, want string }{
		{"whats the deductable", "whats the deductible"},
		{"owe the libary", "owe the libary"}, // the agent's trade, not the book named "Library"
		{"my seatle rental", "my seattle rental"},
		{"the deductible", "the deductible"},
		{"my tennis court", "my tennis court"},     // an English word, not a typo of "count"
		{"who's the tech", "who's the technician"}, // a clipped word
		{"my plan", "my plan"},                     // a form of the data's word, not a clipping of it
		{"who scored", "who scorers"},              // the doers of the act asked about
		{"when was it planned", "when was it planned"},
	}
	for _, tt := range tests {
		if got := spellAsData(tt.in, data, domain); got != tt.want {
			t.Errorf("spellAsData(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A word of the question the data does not hold is read as a word of its synonym group the
// data does hold, whichever of the two the question uses.
func TestSpellAsDataSynonyms(t *testing.T) {
	locker := []field{{key: "locker", val: "L-3"}, {key: "space", val: "12"}, {key: "job", val: "Bathroom renovation"}}
	dock := []field{{key: "dock", val: "North"}, {key: "spot", val: "7"}, {key: "autopay", val: "on"}}
	tests := []struct {
		in   string
		data []field
		want string
	}{
		{"which spot is mine", locker, "which space is mine"},
		{"the permit for my remodel", locker, "the permit for my renovation"},
		{"which space is mine", dock, "which spot is mine"}, // the other way round
		{"is it paid automatically", dock, "is it paid autopay"},
		{"which spot is mine", dock, "which spot is mine"}, // held as written
		{"how many spots", dock, "how many spots"},         // held in another form
		{"how much space is left", locker, "how much space is left"},
		{"how many hours are left", []field{{key: "hours_remaining", val: "2.5"}}, "how many hours are remaining"},
		{"my left ear", []field{{key: "left", val: "48"}, {key: "remaining", val: "2"}}, "my left ear"},
	}
	for _, tt := range tests {
		if got := spellAsData(tt.in, tt.data, nil); got != tt.want {
			t.Errorf("spellAsData(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// An object the request names is said once, whichever way its facts are gathered.
func TestRenderSaysANamedObjectOnce(t *testing.T) {
	v, err := decodeOrdered(`{"plan":"Flex","fee":{"amount":39.9,"currency":"USD"},"freeze":{"allowed":true,"max_months":3}}`)
	if err != nil {
		t.Fatal(err)
	}
	p := newRenderer(5, nil, "and if i freeze it?").data(v, topic{})
	if got := strings.Count(p.text, "max 3 months"); got != 1 {
		t.Errorf("data() = %q, says the freeze's max months %d times, want once", p.text, got)
	}
}

// A question whether someone does a thing the data holds nothing of is told so; questions of
// state and of what the user has are left to the data.
func TestUnaskedDoQuestion(t *testing.T) {
	data := `{"visits":[{"kind":"Cleaning","when":"2026-12-03","clinic":"Brightsmile","state":"booked"}],"points":1200}`
	for asked, want := range map[string]string{
		"does my dentist take walk-ins?":            "walk-ins",
		"is my visit delayed":                       "",
		"do i have enough points for a lounge pass": "",
		"did i book the cleaning":                   "",
		"what food does rex eat":                    "food",
		"did the cleaning refund come thru":         "",
		"what's the school's snow day policy":       "the school's snow day policy",
		"what's my blood type":                      "your blood type",
		"whats the dentist's name":                  "",                          // "name": a light noun, the trade's word
		"what is the clinic called":                 "",                          // held
		"what are the kids eating":                  "",                          // a verb ends the thing, "kids" no more than the trade
		"what's my brightsmile password":            "your brightsmile password", // a record's name, then a thing not held
		"what's the brightsmile visit state":        "",                          // held as a fact
		"do i owe any copays":                       "",                          // what is owed answers, whatever it is called
	} {
		v, err := decodeOrdered(data)
		if err != nil {
			t.Fatal(err)
		}
		r := newRenderer(5, nil, asked)
		r.domain = map[string]bool{"children": true, "school": true}
		if got := r.unasked(v); got != want {
			t.Errorf("unasked(%q) = %q, want %q", asked, got, want)
		}
	}
}

// A result holding only the day a request names, none of the things it asks about, holds
// nothing asked: other tools are asked too. Kept beside them, it is not off topic.
func TestHoldsNothingAskedBeyondTheDay(t *testing.T) {
	children := `{"status":"ok","data":{"count":2,"children":[{"name":"Ivy","days":["Monday","Wednesday"]},{"name":"Theo","days":["Friday"]}]}}`
	tests := []struct {
		asked string
		want  bool
	}{
		{"what are the kids eating wednesday", true},
		{"which days does ivy go", false},
		{"and on wednesday", false}, // the day alone is asked, and held
		// A follow-up in the trade's words only is about what the earlier request named.
		{"how much is it (earlier: how much do i owe for november)", true},
		{"how much is it (earlier: which days does ivy go)", false},
		{"what time is my tennis court", true}, // "court" is no typo of the children's "count"
	}
	for _, tt := range tests {
		res := Result{Name: "children", Content: children}
		if got := HoldsNothingAsked(res, tt.asked, 5, func() map[string]bool { return map[string]bool{"daycare": true} }); got != tt.want {
			t.Errorf("HoldsNothingAsked(%q) = %v, want %v", tt.asked, got, tt.want)
		}
	}
}

// A list the call asked for by a field of its records, holding records whose field carries
// none of the argument's words, was not chosen by the service: the records the request names
// are picked as if it had asked for all.
func TestRenderUnfilteredCall(t *testing.T) {
	data := `{"bookings":[{"amenity":"Clubhouse great room","deposit":{"amount":200,"currency":"USD"}},
		{"amenity":"Pool cabana","deposit":{"amount":50,"currency":"USD"},"status":"refunded"}]}`
	tests := []struct {
		asked, args        string
		mentions, excludes []string
	}{
		{"did i get my cabana deposit back", `{"amenity":"cabana"}`, []string{"1 of 2 bookings", "Pool cabana"}, []string{"Clubhouse", "related"}},
		{"any hot tub bookings", `{"amenity":"hot tub"}`, []string{"no booking for hot tub"}, nil},
		// A service that chose by the words returns only records that carry them.
		{"my cabana booking", `{"amenity":"cabana"}`, nil, []string{"Clubhouse"}},
		// A search's query names no field: what it found beside its matches is related.
		{"any cabana bookings", `{"query":"cabana"}`, []string{"1 booking that matches, and 1 related"}, nil},
	}
	for _, tt := range tests {
		v, err := decodeOrdered(data)
		if err != nil {
			t.Fatal(err)
		}
		call := &llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: "bookings", Arguments: tt.args}}
		p := newRenderer(5, call, tt.asked).data(v, topic{})
		got := p.found + "\n" + p.text
		for _, m := range tt.mentions {
			if !strings.Contains(got, m) {
				t.Errorf("data(%q, %s) = %q, want it to mention %q", tt.asked, tt.args, got, m)
			}
		}
		for _, x := range tt.excludes {
			if strings.Contains(got, x) {
				t.Errorf("data(%q, %s) = %q, want no %q", tt.asked, tt.args, got, x)
			}
		}
	}
}

// A thing the turn's other results hold as written is a thing of its own: a record here
// that only comes near it in meaning (a sweater for a jacket) is not said to be it.
func TestNarrateThingHeldElsewhere(t *testing.T) {
	returns := `{"status":"ok","data":{"returns":[
		{"item":"Merino wool sweater","status":"refunded"},
		{"item":"Trail running shoes","status":"in_transit"}]}}`
	tests := []struct {
		name      string
		elsewhere map[string]bool
		mentions  string
	}{
		{"alone, the near record may be the thing said in other words", nil, "sweater"},
		{"held as written by another result, it is not", map[string]bool{"jacket": true}, "no return for your jacket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Result{Name: "get_returns", Content: returns, Elsewhere: tt.elsewhere}
			p := Narrate(res, "is there a refund for my jacket", 5, func() map[string]bool { return nil })
			got := p.found + "\n" + p.text
			if !strings.Contains(got, tt.mentions) {
				t.Errorf("Narrate() = %q, want it to mention %q", got, tt.mentions)
			}
		})
	}
}

// The frame of a question ("how long", "how much") names no thing a result should hold: a
// result about the plan asked of answers it, and no other tool is looked in.
func TestHoldsNothingAskedFrameWords(t *testing.T) {
	res := Result{Name: "get_plan", Content: `{"status":"ok","data":{"plan":"Gold","since":"2019-04-12"}}`}
	domain := func() map[string]bool { return map[string]bool{"plan": true} }
	if HoldsNothingAsked(res, "how long have i had this plan", 5, domain) {
		t.Errorf("HoldsNothingAsked(%q) = true, want false", "how long have i had this plan")
	}
}

// Words held nowhere name a missing thing only when they are all the request says: beside
// another clause they may ask of what that clause names, or the tool was called for it.
func TestUnaskedPhraseBesideAnotherClause(t *testing.T) {
	data := `{"landlord":{"name":"Dana Pike","phone":"555-0101"},"lease":{"ends":"2027-06-30"}}`
	for asked, want := range map[string]string{
		"what's my blood type":                               "your blood type",
		"i need to call the landlord, what's her blood type": "",
		"what's my parking permit and when does lease end":   "",
		"what's my blood type; when does the lease end":      "",
	} {
		v, err := decodeOrdered(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := newRenderer(5, nil, asked).unasked(v); got != want {
			t.Errorf("unasked(%q) = %q, want %q", asked, got, want)
		}
	}
}

// A thing no record names is said to be missing only when nothing else the request says is
// held: a kind of book no record names, by an author one holds, is that record.
func TestNoneFoundBesideAHeldName(t *testing.T) {
	data := `{"loans":[{"title":"Mapping the Sky","author":"Lena Ortiz","due":"2026-12-11"},{"title":"Dune","author":"Frank Herbert","due":"2026-12-20"}]}`
	tests := []struct {
		asked, want, not string
	}{
		{"when is the cookbook by lena ortiz due", "Mapping the Sky", "no loan"},
		{"when is the cookbook due", "no loan for the cookbook", "Dune"},
	}
	for _, tt := range tests {
		v, err := decodeOrdered(data)
		if err != nil {
			t.Fatal(err)
		}
		p := newRenderer(5, nil, tt.asked).data(v, topic{})
		got := p.found + "\n" + p.text
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("data(%q) = %q, want %q and no %q", tt.asked, got, tt.want, tt.not)
		}
	}
}

// TestHoldsNothingAskedDoerNoun checks that a noun for what does an act ("the heater") is held
// by data that names the act ("Radiator not heating"), though the data's word reads as a verb.
func TestHoldsNothingAskedDoerNoun(t *testing.T) {
	res := Result{Name: "maintenance", Content: `{"status":"ok","data":{"requests":[
		{"ticket":"MR-5521","issue":"Radiator not heating","visit":{"date":"2026-11-30","window":"09:00-12:00"}},
		{"ticket":"MR-5530","issue":"Desk lamp flickering","status":"open"}]}}`}
	domain := func() map[string]bool { return map[string]bool{"dorm": true} }
	if HoldsNothingAsked(res, "when is someone coming to fix the heater in my dorm", 5, domain) {
		t.Errorf("HoldsNothingAsked(%q) = true, want false", "when is someone coming to fix the heater in my dorm")
	}
}

// TestNarrateStatedAmount checks that an amount the request states ("the 4.25") is no
// missing thing when the data holds it: the record holding it is what is asked about.
func TestNarrateStatedAmount(t *testing.T) {
	res := Result{Name: "invoices", Content: `{"status":"ok","data":{"invoices":[{"number":"INV-7","lines":[
		{"what":"window cleaning","amount":{"amount":30.00,"currency":"GBP"}},
		{"what":"parking charge","amount":{"amount":4.25,"currency":"GBP"}}]}]}}`}
	domain := func() map[string]bool { return map[string]bool{"invoice": true} }
	for _, asked := range []string{"whats the 4.25 on it for", "what's the 4.25 for"} {
		p := Narrate(res, asked, 5, domain)
		if got := p.found + "\n" + p.text; !strings.Contains(got, "parking charge") || strings.Contains(got, "couldn't find") {
			t.Errorf("Narrate(%q) = %q, want the parking charge", asked, got)
		}
	}
}

// TestNarrateNextIsNoThing checks that "next" in the words a wh-question names its thing by
// says which record, not a thing the data does not hold.
func TestNarrateNextIsNoThing(t *testing.T) {
	res := Result{Name: "stages", Content: `{"status":"ok","data":{"project":"BX-100","contract_total":{"amount":9000,"currency":"GBP"},"stages":[
		{"stage":"deposit","amount":{"amount":3000,"currency":"GBP"},"status":"paid","paid_on":"2026-10-16"},
		{"stage":"on fitting","amount":{"amount":6000,"currency":"GBP"},"due":"2026-12-07","status":"unpaid"}]}}`}
	domain := func() map[string]bool { return map[string]bool{"boiler": true, "payment": true} }
	const asked = "whats the next boiler payment"
	p := Narrate(res, asked, 5, domain)
	if got := p.found + "\n" + p.text; !strings.Contains(got, "6,000.00 GBP") || strings.Contains(got, "couldn't find") {
		t.Errorf("Narrate(%q) = %q, want the stage still to pay", asked, got)
	}
}

// TestNarrateJoinedParticle checks that a verb written with its particle ("holdup") asks of
// what a key names by the verb ("hold_reason"), not of a thing the data does not hold.
func TestNarrateJoinedParticle(t *testing.T) {
	res := Result{Name: "jobs", Content: `{"status":"ok","data":{"customer":"A","jobs":[
		{"ref":"J-1","item":"pine dresser","status":"on hold","hold_reason":"waiting for parts from the supplier"},
		{"ref":"J-2","item":"oak stools","status":"ready"}]}}`}
	domain := func() map[string]bool { return map[string]bool{"repair": true} }
	const asked = "whats the holdup on the pine dresser"
	p := Narrate(res, asked, 5, domain)
	if got := p.found + "\n" + p.text; !strings.Contains(got, "waiting for parts") || strings.Contains(got, "couldn't find") {
		t.Errorf("Narrate(%q) = %q, want the reason it is on hold", asked, got)
	}
}

// TestNarrateStatedNumber checks that a number the request states names the record that
// holds it as a word of a value, and that a thing asked of that record in words the data does
// not use ("which van") is no missing thing.
func TestNarrateStatedNumber(t *testing.T) {
	res := Result{Name: "cards", Content: `{"status":"ok","data":{"cards":[
		{"card":"**** 4417","driver":"Mike Brennan","vehicle":{"plate":"BRN-2207","make":"Ford Transit"},"status":"active"},
		{"card":"**** 4425","driver":"Sophie Lane","vehicle":{"plate":"PLM-4410","make":"Vauxhall Vivaro"},"status":"frozen"},
		{"card":"**** 4433","driver":"Raj Patel","vehicle":{"plate":"KTR-9133","make":"Toyota Hilux"},"status":"active"}]}}`}
	p := Narrate(res, "which van is the card ending 4425 for", 5, func() map[string]bool { return map[string]bool{"fuel": true} })
	got := p.found + "\n" + p.text
	if !strings.Contains(got, "Vivaro") || strings.Contains(got, "Hilux") || strings.Contains(got, "Transit") {
		t.Errorf("Narrate(%q) = %q, want the Vivaro's card alone", "which van is the card ending 4425 for", got)
	}
}

// A result that holds no word of what was asked says so when it is all there is, naming the
// thing in the request's words, rather than present data about other things as the answer;
// a result that holds one is narrated.
func TestHeldNowhere(t *testing.T) {
	orders := `{"status":"ok","data":{"orders":[
		{"item":"Trail running shoes","status":"shipped"},
		{"item":"Wool socks","status":"delivered"}]}}`
	mail := `{"status":"ok","data":{"items":[
		{"kind":"package","carrier":"UPS","received":"2026-11-25"},
		{"kind":"letter","sender":"Department of Revenue","received":"2026-11-26"}]}}`
	tests := []struct {
		asked, tool, data string
		want              string // "" for no such piece
	}{
		{"can you gift wrap my order", "list_orders", orders, ""},     // the data holds a word of it: "order"
		{"do my socks come in red", "list_orders", orders, ""},        // the data holds a word of it: "socks"
		{"can u check where my parcel is", "list_orders", orders, ""}, // a question of its own inside
		{"do they help with potty training", "list_orders", orders, "I couldn't find anything about potty training in your orders."},
		{"do they help with snow removal", "list_orders", orders, "I couldn't find anything about snow removal in your orders."},
		{"has my dhl delivery shown up", "mail", mail, ""},                    // a carrier like those held
		{"how much can i borrow against my order", "list_orders", orders, ""}, // a wh-question asks of the data
		{"did my package arrive", "mail", mail, ""},                           // a verb after the thing
		{"do i owe the socks money", "list_orders", orders, ""},               // what is asked of the data
		{"can you move my order to friday", "list_orders", orders, ""},        // the act, and a day
		{"can i get a car or a van", "mail", mail, ""},                        // two things asked
		{"has my ups package shown up", "mail", mail, ""},
		{"did my socks ship", "list_orders", orders, ""},
	}
	domain := func() map[string]bool { return map[string]bool{"order": true, "mail": true} }
	for _, tt := range tests {
		t.Run(tt.asked, func(t *testing.T) {
			p := Narrate(Result{Name: tt.tool, Content: tt.data}, tt.asked, 5, domain)
			got, ok := p.HeldNowhere()
			if ok != (tt.want != "") || ok && got.text != tt.want {
				t.Errorf("HeldNowhere(%q) = %q, %v, want %q", tt.asked, got.text, ok, tt.want)
			}
		})
	}
}

// TestAbsentPhraseBesideTradeWord checks that a word near the agent's trade ("plane" of a
// flights agent) is read as the trade, so the thing a question whether names beside it is
// still found held nowhere.
func TestAbsentPhraseBesideTradeWord(t *testing.T) {
	flights := `{"status":"ok","data":{"flights":[{"flight":"UA 837","from":"SFO","to":"NRT","status":"on time"}]}}`
	domain := map[string]bool{"flight": true}
	tests := []struct{ asked, want string }{
		{"can i bring my dog on the plane", "dog"},
		{"can i bring my dog", "dog"},
		{"is my plane on time", ""}, // the trade alone names nothing missing
	}
	v, err := decodeOrdered(flights)
	if err != nil {
		t.Fatal(err)
	}
	_, data, _ := okData(Result{Content: flights})
	for _, tt := range tests {
		r := askedRenderer(Result{}, 5, tt.asked, v, domain)
		if got := r.absentPhrase(r.askedThings(heldTerms(data), false)); got != tt.want {
			t.Errorf("absentPhrase(%q) = %q, want %q", tt.asked, got, tt.want)
		}
	}
}

// TestRenderListsTheRequestNames checks that of an object's lists, those the request names are
// the answer, without the others listed beside them.
func TestRenderListsTheRequestNames(t *testing.T) {
	data := `{"status":"ok","data":{"orders":[
		{"order_no":"CT-70551","items":[{"name":"Wax guards","qty":3}],"total":{"amount":40.5,"currency":"USD"},"status":"shipped"},
		{"order_no":"CT-69980","items":[{"name":"Cleaning wipes","qty":1}],"total":{"amount":12,"currency":"USD"},"status":"delivered"}],
		"insurance_claims":[{"claim_no":"HC-22817","insurer":"BlueRiver Health","insurer_paid":{"amount":2500,"currency":"USD"},"status":"paid"}]}}`
	tests := []struct {
		asked, want, not string
	}{
		{"how much did insurance pay toward my hearing aids", "BlueRiver", "CT-70551"},
		{"who gets my pension if i die", "BlueRiver", "nothing"}, // a record's word names no list
		{"show my orders", "CT-70551", "nothing"},
	}
	domain := func() map[string]bool { return map[string]bool{"hear": true, "aid": true} }
	for _, tt := range tests {
		p := Narrate(Result{Name: "orders", Content: data}, tt.asked, 5, domain)
		got := p.found + "\n" + p.text
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("Narrate(%q) = %q, want %q and no %q", tt.asked, got, tt.want, tt.not)
		}
	}
}

// TestNarrateNothingHeld checks that a result holding nothing worth narrating is said in the
// words of every other reply of nothing found.
func TestNarrateNothingHeld(t *testing.T) {
	for _, content := range []string{`{"status":"ok","data":{}}`, `{"status":"ok","data":null}`} {
		p := Narrate(Result{Name: "project", Content: content}, "when will my renovation be done", 5, func() map[string]bool { return nil })
		if !strings.HasPrefix(p.text, "I couldn't find") {
			t.Errorf("Narrate(%s) = %q, want it to say it couldn't find anything", content, p.text)
		}
	}
}

// A key naming a noun in -ment holds its verb: "when did we last pay" is asked of a
// most_recent_payment, and no other tool need be looked in.
func TestHoldsNothingAskedReadsVerbsOfKeys(t *testing.T) {
	res := Result{Name: "account", Content: `{"status":"ok","data":{"balance_owed":{"amount":95,"currency":"USD"},
		"most_recent_payment":{"amount":{"amount":60,"currency":"USD"},"received":"2026-10-14"}}}`}
	if HoldsNothingAsked(res, "when did we last pay", 5, func() map[string]bool { return map[string]bool{"vet": true} }) {
		t.Error("HoldsNothingAsked(when did we last pay) = true, want false: the payment is held")
	}
}

// TestNarrateQuotedLabel checks that a label the request says whole ("before moving day" of
// "before move day") is the fact asked for, though the topic's word and a light noun are all
// its words name.
func TestNarrateQuotedLabel(t *testing.T) {
	data := `{"status":"ok","data":{"move_id":"BOX-1","date":"2026-12-05","status":"confirmed",
		"crew":{"lead":"Tomas Reyes","movers":3,"truck":"26 ft box truck"},"origin":{"address":"2218 NE Alberta St","floor":3},
		"destination":{"address":"918 Birch Ave","floor":1},"packing":{"boxes":25,"packing_day":"2026-12-04"},
		"before_move_day":["Reserve the parking spot","Defrost the freezer"]}}`
	domain := func() map[string]bool { return map[string]bool{"move": true} }
	p := Narrate(Result{Name: "move_plan", Content: data}, "anything i need to do before moving day?", 5, domain)
	if got := p.standalone(); !strings.Contains(got, "Defrost the freezer") || strings.Contains(got, "Tomas Reyes") {
		t.Errorf("Narrate = %q, want the things to do before move day alone", got)
	}
}
