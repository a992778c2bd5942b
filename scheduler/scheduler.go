// Package scheduler pays recurring payments when they fall due. One instance at a time
// runs it, elected through a PostgreSQL advisory lock; every payment is a command
// that names the cycle it pays, so a second runner or a restart never pays twice.
package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// leaderLockID is the advisory lock held by the instance that runs the scheduler.
const leaderLockID int64 = 0x66696e7363686564 // "finsched"

// paymentIDs derives a payment's transaction id from the item and the cycle the
// scheduler asks to pay.
var paymentIDs = uuid.MustParse("2b7f0c1e-4a59-4f7e-9d0e-5c3a8e6f1b42")

// Scheduler pays due recurring payments.
type Scheduler struct {
	Pool     *pgxpool.Pool
	Ledger   *ledger.Ledger
	Now      func() time.Time
	Interval time.Duration // between runs; default one minute
}

// Run waits to become the leader, then pays due items until ctx ends: a pass that paid
// something is followed by another at once, since it may have left items for the next;
// otherwise the next pass comes after Interval. A leader that loses its database
// connection loses the lock, and another instance's Run takes over.
func (s *Scheduler) Run(ctx context.Context) error {
	interval := s.Interval
	if interval <= 0 {
		interval = time.Minute
	}
	return leader.Run(ctx, s.Pool, "scheduler", leaderLockID, interval, func(ctx context.Context) error {
		for {
			paid, err := s.RunOnce(ctx)
			if err != nil && ctx.Err() == nil {
				slog.Error("scheduler run", "err", err)
			}
			wait := interval
			if paid > 0 && err == nil {
				wait = 0
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
		}
	})
}

// itemsPerPass bounds the items of one workspace that a pass pays: a workspace with
// thousands due takes several passes, and every other workspace is paid in each.
const itemsPerPass = 100

// RunOnce makes one pass. It takes the items due up to today, at most itemsPerPass of
// each workspace, in turns across workspaces (queries.DueRecurringPayments), and pays
// each item's due cycles, which PayRecurring bounds to domain.MaxOwedCycles by
// skipping older ones. So one workspace's backlog delays another's due payment by one
// item's cycles at most, and never past the pass. It returns how many payments it
// recorded. An item that cannot be paid (no wallet, say) is logged and left for the
// next pass.
func (s *Scheduler) RunOnce(ctx context.Context) (int, error) {
	today := domain.BusinessDay(s.Now())
	due, err := queries.DueRecurringPayments(ctx, s.Pool, today, itemsPerPass)
	if err != nil {
		return 0, err
	}
	paid := 0
	for _, d := range due {
		n, err := s.payDue(ctx, d, today)
		paid += n
		if err != nil {
			if ctx.Err() != nil {
				return paid, ctx.Err()
			}
			slog.Warn("scheduler: recurring payment not paid", "workspace", d.WorkspaceID, "recurring", d.ID, "err", err)
		}
	}
	return paid, nil
}

// payDue pays item d's cycles due up to today, oldest first, one command each, each
// naming the cycle it means to pay. It stops when a command pays nothing: another
// runner or a person paid that cycle first, or the item changed.
func (s *Scheduler) payDue(ctx context.Context, d queries.DueRecurring, today domain.Date) (int, error) {
	paid := 0
	for due := d.NextPayment; !due.After(today); {
		cmd := domain.PayRecurring{
			RecurringID:   d.ID,
			TransactionID: uuid.NewSHA1(paymentIDs, []byte(d.ID.String()+due.String())),
			Today:         today, DueDate: &due,
		}
		res, err := s.Ledger.Execute(ctx, ledger.Call{
			WorkspaceID: d.WorkspaceID,
			Metadata:    ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "scheduler"},
			Decide:      cmd.Decide,
		})
		if err != nil {
			return paid, fmt.Errorf("pay the cycle due %s: %w", due, err)
		}
		payment := paymentOf(res)
		if payment == nil {
			return paid, nil
		}
		paid++
		due = payment.NextPayment
	}
	return paid, nil
}

// paymentOf returns the payment a command's result records, nil when it paid nothing.
func paymentOf(res ledger.Result) *domain.RecurringPaid {
	for _, e := range res.Events {
		if p, ok := e.Data.(*domain.RecurringPaid); ok {
			return p
		}
	}
	return nil
}
