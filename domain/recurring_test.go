package domain

import (
	"testing"

	"github.com/google/uuid"
)

// A recurring payment created owing more than MaxOwedCycles cycles on the day issued
// (2026-03-10) skips the oldest at once, and keeps the latest twelve to pay.
func TestCreatedRecurringSkipsWhatItOwesBeyondTheBound(t *testing.T) {
	cases := []struct {
		name, periodicity, next, kind string
		paused                        bool
		want                          *RecurringSkipped // nil: nothing skipped
	}{
		{name: "weekly, two years back: 105 cycles due", periodicity: PeriodWeekly, next: "2024-03-12",
			want: &RecurringSkipped{FirstDue: MustParseDate("2024-03-12"), LastDue: MustParseDate("2025-12-16"), Cycles: 93, NextPayment: MustParseDate("2025-12-23")}},
		{name: "monthly, thirteen cycles due", periodicity: PeriodMonthly, next: "2025-03-10",
			want: &RecurringSkipped{FirstDue: MustParseDate("2025-03-10"), LastDue: MustParseDate("2025-03-10"), Cycles: 1, NextPayment: MustParseDate("2025-04-10")}},
		{name: "monthly, twelve cycles due", periodicity: PeriodMonthly, next: "2025-04-10"},
		{name: "month ends stay month ends", periodicity: PeriodMonthly, next: "2024-01-31",
			want: &RecurringSkipped{FirstDue: MustParseDate("2024-01-31"), LastDue: MustParseDate("2025-02-28"), Cycles: 14, NextPayment: MustParseDate("2025-03-31")}},
		{name: "yearly, from the calendar's first day", periodicity: PeriodYearly, next: "1900-01-01",
			want: &RecurringSkipped{FirstDue: MustParseDate("1900-01-01"), LastDue: MustParseDate("2014-01-01"), Cycles: 115, NextPayment: MustParseDate("2015-01-01")}},
		{name: "paused", periodicity: PeriodWeekly, next: "2024-03-12", paused: true},
		{name: "a reminder moves no money", periodicity: PeriodWeekly, next: "2024-03-12", kind: "other"},
		{name: "due in the future", periodicity: PeriodWeekly, next: "2026-04-01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := given(t, workspace()...)
			id := uuid.New()
			kind := RecurringExpense
			if c.kind != "" {
				kind = RecurringKind(c.kind)
			}
			active := !c.paused
			events, err := CreateRecurring{RecurringID: id, Name: "Gym", Amount: dec("25"), Kind: kind, Periodicity: c.periodicity,
				NextPayment: MustParseDate(c.next), Active: &active, Today: issued}.Decide(w)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == nil {
				if len(events) != 1 {
					t.Fatalf("events %v, want the creation alone", events)
				}
				return
			}
			c.want.RecurringID = id
			if len(events) != 2 || events[1].EventType() != TypeRecurringSkipped || *events[1].(*RecurringSkipped) != *c.want {
				t.Fatalf("events %v, want the creation then %+v", events, c.want)
			}
			then(t, w, events)
			if got := w.Recurring[id]; got.NextPayment != c.want.NextPayment || got.Anchor != MustParseDate(c.next) {
				t.Fatalf("after the skip: next %s, anchor %s", got.NextPayment, got.Anchor)
			}
		})
	}
}

// An item that came to owe more than the bound (recorded before the bound, or left to
// fall behind) skips the oldest cycles when it is paid, by a person or the scheduler,
// or activated again, and pays the oldest of those left, dated on its due day when the
// scheduler pays it.
func TestOwedCyclesAreSkippedWhenPaidOrResumed(t *testing.T) {
	id := uuid.New()
	// Weekly since year 1, as an item recorded before dates were bounded could be.
	old := &RecurringCreated{RecurringID: id, RecurringFields: RecurringFields{Name: "Gym", Amount: dec("25"), Kind: RecurringExpense,
		Periodicity: PeriodWeekly, NextPayment: MustParseDate("0001-01-02"), Anchor: MustParseDate("0001-01-02"), Active: true, WalletID: idp(cash)}}
	w := given(t, append(workspace(), old)...)
	first := w.Recurring[id].NextPayment
	due := first
	events, err := PayRecurring{RecurringID: id, TransactionID: uuid.New(), Today: issued, DueDate: &due}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || events[0].EventType() != TypeRecurringSkipped || events[1].EventType() != TypeTransactionCreated || events[2].EventType() != TypeRecurringPaid {
		t.Fatalf("events %v, want the skip, the payment's transaction and the payment", events)
	}
	skip, paid := events[0].(*RecurringSkipped), events[2].(*RecurringPaid)
	if skip.FirstDue != first || skip.LastDue != MustParseDate("2025-12-16") || skip.NextPayment != MustParseDate("2025-12-23") || skip.Cycles != 105_658 ||
		paid.DueDate != MustParseDate("2025-12-23") || paid.PaidOn != MustParseDate("2025-12-23") || events[1].(*TransactionCreated).Date != MustParseDate("2025-12-23") {
		t.Fatalf("skip %+v, payment %+v", skip, paid)
	}
	then(t, w, events)
	if r := w.Recurring[id]; r.NextPayment != MustParseDate("2025-12-30") || *r.LastPayment != MustParseDate("2025-12-23") {
		t.Fatalf("after the payment: %+v", r)
	}

	// Paused a year, then active again: the update skips what it owes beyond the bound.
	w = given(t, append(workspace(), &RecurringCreated{RecurringID: id, RecurringFields: RecurringFields{Name: "Rent", Amount: dec("500"),
		Kind: RecurringExpense, Periodicity: PeriodMonthly, NextPayment: MustParseDate("2024-03-01"), Anchor: MustParseDate("2024-03-01"), WalletID: idp(cash)}})...)
	events, err = UpdateRecurring{RecurringID: id, Active: Of(true), Today: issued}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	want := RecurringSkipped{RecurringID: id, FirstDue: MustParseDate("2024-03-01"), LastDue: MustParseDate("2025-03-01"), Cycles: 13, NextPayment: MustParseDate("2025-04-01")}
	if len(events) != 2 || *events[1].(*RecurringSkipped) != want {
		t.Fatalf("events %v, want the update then %+v", events, want)
	}
	// A person paying by hand pays today, the oldest cycle left.
	then(t, w, events)
	events, err = PayRecurring{RecurringID: id, TransactionID: uuid.New(), Today: issued}.Decide(w)
	if err != nil || len(events) != 2 || events[1].(*RecurringPaid).DueDate != MustParseDate("2025-04-01") || events[1].(*RecurringPaid).PaidOn != MustParseDate("2026-03-10") {
		t.Fatalf("paid by hand: %v, %v", events, err)
	}
}

// Paying never moves the next payment past the ledger's calendar.
func TestPaymentStaysWithinTheCalendar(t *testing.T) {
	id := uuid.New()
	w := given(t, append(workspace(), &RecurringCreated{RecurringID: id, RecurringFields: RecurringFields{Name: "Far", Amount: dec("1"),
		Kind: RecurringExpense, Periodicity: PeriodYearly, NextPayment: MustParseDate("2099-06-30"), Anchor: MustParseDate("2099-06-30"), Active: true}})...)
	if _, err := (PayRecurring{RecurringID: id, TransactionID: uuid.New(), Today: issued}).Decide(w); code(err) != "CONFLICT" {
		t.Fatalf("paying past 2099-12-31: %v", err)
	}
}
