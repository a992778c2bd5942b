package database

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// registerUUID teaches a connection's type map to send and receive google/uuid values
// in binary form. Without it pgx goes through uuid.UUID's driver.Valuer: it formats the
// id as text, fails a binary encode (building an error), and parses the text back, for
// every id of every statement.
func registerUUID(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapUUIDEncode}, m.TryWrapEncodePlanFuncs...)
	m.TryWrapScanPlanFuncs = append([]pgtype.TryWrapScanPlanFunc{tryWrapUUIDScan}, m.TryWrapScanPlanFuncs...)
}

type uuidEncodePlan struct{ next pgtype.EncodePlan }

func (p *uuidEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode([16]byte(value.(uuid.UUID)), buf)
}

// uuidPointerEncodePlan sends what a *uuid.UUID points to; pgx sends NULL for a nil
// one before it plans.
type uuidPointerEncodePlan struct{ next pgtype.EncodePlan }

func (p *uuidPointerEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidPointerEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode([16]byte(*value.(*uuid.UUID)), buf)
}

func tryWrapUUIDEncode(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	switch u := value.(type) {
	case uuid.UUID:
		return &uuidEncodePlan{}, [16]byte(u), true
	case *uuid.UUID:
		if u != nil {
			return &uuidPointerEncodePlan{}, [16]byte(*u), true
		}
	}
	return nil, nil, false
}

type uuidScanPlan struct{ next pgtype.ScanPlan }

func (p *uuidScanPlan) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *uuidScanPlan) Scan(src []byte, target any) error {
	return p.next.Scan(src, (*[16]byte)(target.(*uuid.UUID)))
}

func tryWrapUUIDScan(target any) (pgtype.WrappedScanPlanNextSetter, any, bool) {
	if u, ok := target.(*uuid.UUID); ok {
		return &uuidScanPlan{}, (*[16]byte)(u), true
	}
	return nil, nil, false
}
