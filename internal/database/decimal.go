package database

import (
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// registerDecimalPointer teaches a connection's type map to send a *decimal.Decimal as
// the decimal it points to, which pgx-shopspring-decimal sends exactly. Without it pgx
// goes through the pointer's driver.Valuer, decimal.String, which drops trailing zeros:
// a correction to 2.20 was stored as 2.2 where its event says 2.20.
func registerDecimalPointer(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapDecimalPointerEncode}, m.TryWrapEncodePlanFuncs...)
}

// decimalPointerEncodePlan sends what a *decimal.Decimal points to; pgx sends NULL for a
// nil one before it plans.
type decimalPointerEncodePlan struct{ next pgtype.EncodePlan }

func (p *decimalPointerEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *decimalPointerEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(*value.(*decimal.Decimal), buf)
}

func tryWrapDecimalPointerEncode(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	if d, ok := value.(*decimal.Decimal); ok && d != nil {
		return &decimalPointerEncodePlan{}, *d, true
	}
	return nil, nil, false
}
