package answer

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-ai/switchboard/internal/llm/offline/lang"
)

// totalOf adds up the records of arr when the request asks for a sum ("how much do i owe in
// tickets", "what do they come to altogether"): each record's first amount of money, in one
// currency. A request that asks what is owed leaves out the records that are over (a paid
// ticket). It returns the sum as it reads ("$99.00") and how many records it adds, or "" when
// the request asks no sum, fewer than two records have an amount, or currencies differ.
func (r renderer) totalOf(arr []any, cur string) (string, int) {
	owes := r.asksOwed()
	if !owes && !r.says(totalWords) {
		return "", 0
	}
	var sum float64
	code, n := "", 0
	for _, item := range arr {
		if owes && isOver(item) {
			continue
		}
		amount, c, key, ok := firstAmount(item, cur)
		if ok && owes && slices.ContainsFunc(lang.Terms(lang.Humanise(key)), func(t string) bool { return toUserTerms[t] }) {
			continue // a refund is money the user gets, not money owed
		}
		if !ok || n > 0 && c != code {
			return "", 0
		}
		sum, code, n = sum+amount, c, n+1
	}
	if n < 2 {
		return "", 0
	}
	return formatMoney(json.Number(strconv.FormatFloat(sum, 'f', 2, 64)), code), n
}

// firstAmount returns the first amount of money among a record's own members, with its
// currency and key: an amount object ({"amount": 47, "currency": "USD"}) or a number named
// like money beside the currency in force. A rate ("price per gallon", an amount per day)
// adds up to nothing.
func firstAmount(item any, cur string) (float64, string, string, bool) {
	obj, _ := item.([]field)
	money := moneyMembers(obj, cur)
	for i, f := range obj {
		if perUnit(lang.Humanise(f.key)) {
			continue
		}
		var n json.Number
		code := cur
		switch v := f.val.(type) {
		case []field:
			amount, c, ok := moneyObject(v)
			if !ok || len(perOf(v)) > 0 {
				continue
			}
			n, code = amount, c
		case json.Number:
			if !money[i] {
				continue
			}
			n = v
		default:
			continue
		}
		x, err := n.Float64()
		return x, code, f.key, err == nil
	}
	return 0, "", "", false
}

// perUnit reports whether a label names a rate: "price per gallon".
func perUnit(label string) bool {
	return slices.Contains(strings.Fields(label), "per")
}

// toUserTerms name money paid to the user (see language.txt), as terms.
var toUserTerms = func() map[string]bool {
	out := map[string]bool{}
	for w := range lang.List("toUserMoney") {
		addTerms(out, w)
	}
	return out
}()
