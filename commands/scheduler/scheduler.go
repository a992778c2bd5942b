// Package scheduler pays recurring payments when they fall due. One instance at a time
// runs it, elected through a PostgreSQL advisory lock; every payment is a command
// that names the cycle it pays, so a second runner or a restart never pays twice.
package scheduler

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/internal/leader"
	"github.com/finledger/finledger/queries"
)

// leaderLockID is the advisory lock held by the instance that runs the scheduler.
const leaderLockID int64 = 0x66696e7363686564 // "finsched"

// paymentIDs derives a payment's transaction id from the item and the cycle it pays.
var paymentIDs = uuid.MustParse("2b7f0c1e-4a59-4f7e-9d0e-5c3a8e6f1b42")

// Scheduler pays due recurring payments.
type Scheduler struct {
	Pool     *pgxpool.Pool
	Ledger   *commands.Ledger
	Now      func() time.Time
	Interval time.Duration // between runs; default one minute
}

// Run waits to become the leader, then pays due items every Interval until ctx ends.
// A leader that loses its database connection loses the lock, and another instance's
// Run takes over.
func (s *Scheduler) Run(ctx context.Context) error {
	interval := s.Interval
	if interval <= 0 {
		interval = time.Minute
	}
	return leader.Run(ctx, s.Pool, "scheduler", leaderLockID, interval, func(ctx context.Context) error {
		for {
			if _, err := s.RunOnce(ctx); err != nil && ctx.Err() == nil {
				slog.Error("scheduler run", "err", err)
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(interval):
			}
		}
	})
}

// maxPaymentsPerRun bounds one run; the next run carries on.
const maxPaymentsPerRun = 10_000

// RunOnce pays every cycle due up to today, oldest first, catching up items that missed
// several. It returns how many payments it recorded. An item that cannot be paid (no
// wallet, say) is logged and left for the next run.
func (s *Scheduler) RunOnce(ctx context.Context) (int, error) {
	today := commands.BusinessDay(s.Now())
	failed := map[uuid.UUID]bool{}
	paid := 0
	for paid < maxPaymentsPerRun {
		due, err := queries.DueRecurringPayments(ctx, s.Pool, today, 200)
		if err != nil {
			return paid, err
		}
		progress := false
		for _, d := range due {
			if failed[d.ID] {
				continue
			}
			dueDate := d.NextPayment
			cmd := commands.PayRecurring{
				RecurringID:   d.ID,
				TransactionID: uuid.NewSHA1(paymentIDs, []byte(d.ID.String()+dueDate.Format(time.DateOnly))),
				Today:         today, DueDate: &dueDate,
			}
			res, err := s.Ledger.Execute(ctx, commands.Call{
				WorkspaceID: d.WorkspaceID,
				Metadata:    commands.Metadata{ActorType: commands.ActorSystem, ActorID: "scheduler"},
				Decide:      cmd.Decide,
			})
			if err != nil {
				if ctx.Err() != nil {
					return paid, ctx.Err()
				}
				slog.Warn("scheduler: recurring payment not paid", "workspace", d.WorkspaceID, "recurring", d.ID,
					"due", dueDate.Format(time.DateOnly), "err", err)
				failed[d.ID] = true
				continue
			}
			if len(res.Events) > 0 { // else another runner paid this cycle first
				paid++
				progress = true
			}
		}
		if !progress {
			return paid, nil
		}
	}
	return paid, nil
}
