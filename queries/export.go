package queries

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// ExportFormat names the layout of an export's JSON, for whoever reads it back.
const ExportFormat = "finledger-export/1"

// exportTable is a resource of the export: its records, in the API's shape, as a CSV of
// their own and a list in the JSON of everything.
type exportTable struct {
	name string // the CSV's name without .csv, and the JSON's key
	sql  string // of workspace $1
	scan func(pgx.CollectableRow) (any, error)
	zero any // a record, for the CSV's header when there is none
}

func table[T any](name, sql string, scan func(pgx.CollectableRow) (T, error)) exportTable {
	var zero T
	return exportTable{name, sql, func(row pgx.CollectableRow) (any, error) { return scan(row) }, zero}
}

// exportTables are the export's resources: every record a person keeps, archived
// wallets, categories and tags included (with their flag), deleted records left out.
var exportTables = []exportTable{
	table("wallets", `SELECT `+walletColumns+` FROM wallets WHERE workspace_id = $1 ORDER BY created_version`, scanWallet),
	table("categories", `SELECT `+categoryColumns+` FROM categories WHERE workspace_id = $1 ORDER BY created_version`, scanCategory),
	table("tags", `SELECT `+tagColumns+` FROM tags WHERE workspace_id = $1 ORDER BY created_version`, scanTag),
	table("transactions", `SELECT `+transactionColumns+` FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL
		ORDER BY date, created_version, id`, func(row pgx.CollectableRow) (Transaction, error) { return scanTransaction(row) }),
	table("budgets", `SELECT `+budgetColumns+` FROM budgets WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, scanBudgetRecord),
	table("goals", goalSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, scanGoal),
	table("debts", debtSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, scanDebt),
	table("recurring-payments", recurringSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, scanRecurring),
	table("members", membersSQL, scanMember),
	table("attachments", `SELECT `+attachmentColumns+liveAttachments+` ORDER BY a.created_version`, scanAttachment),
}

// ErrFileDamaged is a receipt's file its store cannot give whole: missing, or not the
// bytes its hash names. A ReceiptOpener's errors wrap it for such a file.
var ErrFileDamaged = errors.New("the file is not stored whole")

// ReceiptOpener opens the stored file of a workspace's receipt by its hash: its bytes,
// checked against the hash as they are read (a reader ends with an error wrapping
// ErrFileDamaged where they are not those the hash names), and its kind, the name of
// its format and the extension it is exported with.
type ReceiptOpener func(ctx context.Context, sha256 string) (io.ReadCloser, string, error)

// Export writes a workspace's records as a zip: one CSV per resource (exportTables;
// RFC 4180, a header row, a person's text that could run as a formula neutralised:
// csvColumns.write), finledger.json, everything in one object, and the receipts' files
// (exportReceipts). Both hold each record's fields as the API
// names them, in the same order, except that amounts keep their scale (12.50, not 12.5)
// and fields the API gives only in some answers (a listing's running balance) are left
// out. db should be a read-only snapshot (repeatable read), so that the files agree:
// each table is read twice, for its CSV and for the JSON, a row at a time.
func Export(ctx context.Context, db DB, ws Workspace, at time.Time, out io.Writer, open ReceiptOpener) error {
	z := zip.NewWriter(out)
	for _, t := range exportTables {
		f, err := z.Create(t.name + ".csv")
		if err != nil {
			return fmt.Errorf("queries: export %s: %w", t.name, err)
		}
		var line bytes.Buffer
		names, _, _, err := exportFields(t.zero)
		if err != nil {
			return fmt.Errorf("queries: export %s: %w", t.name, err)
		}
		columns := csvColumnsOf(names)
		csvColumns(nil).write(&line, names)
		err = t.each(ctx, db, ws.ID, func(record any) error {
			_, _, cells, err := exportFields(record)
			if err != nil {
				return err
			}
			columns.write(&line, cells)
			_, err = f.Write(line.Bytes())
			line.Reset()
			return err
		})
		if err == nil {
			_, err = f.Write(line.Bytes()) // the header of a table without rows
		}
		if err != nil {
			return err
		}
	}
	f, err := z.Create("finledger.json")
	if err != nil {
		return fmt.Errorf("queries: export json: %w", err)
	}
	head, err := json.Marshal(map[string]any{"format": ExportFormat, "exportedAt": at, "workspace": ws})
	if err != nil {
		return fmt.Errorf("queries: export json: %w", err)
	}
	w := &bytes.Buffer{}
	w.Write(head[:len(head)-1]) // the object stays open for the tables
	for _, t := range exportTables {
		fmt.Fprintf(w, `,%q:[`, t.name)
		first := true
		err := t.each(ctx, db, ws.ID, func(record any) error {
			if !first {
				w.WriteByte(',')
			}
			first = false
			names, values, _, err := exportFields(record)
			if err != nil {
				return err
			}
			w.WriteByte('{')
			for i, name := range names {
				if i > 0 {
					w.WriteByte(',')
				}
				fmt.Fprintf(w, `%q:%s`, name, values[i])
			}
			w.WriteByte('}')
			return flushAt(w, f, 32<<10)
		})
		if err != nil {
			return err
		}
		w.WriteByte(']')
	}
	w.WriteString("}\n")
	if err := flushAt(w, f, 0); err != nil {
		return err
	}
	if err := exportReceipts(ctx, db, ws.ID, z, open); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return fmt.Errorf("queries: export: %w", err)
	}
	return nil
}

// exportReceipts adds each live attachment's file to the zip, stored as it is (receipts
// are compressed already), as receipts/<attachment id>.<kind>: attachments.csv lists
// each by its id with its name and hash. Each file is read whole and checked against its
// hash before it goes in, through a spool of its own: a file its store cannot give whole
// is left out and named, with why, in receipts/unreadable.txt, so that one damaged file
// neither stops the export nor goes in as if whole. Any other error (a store out of
// reach) stops the export.
func exportReceipts(ctx context.Context, db DB, workspaceID uuid.UUID, z *zip.Writer, open ReceiptOpener) error {
	rows, err := db.Query(ctx, `SELECT `+attachmentColumns+liveAttachments+` ORDER BY a.created_version`, workspaceID)
	if err != nil {
		return fmt.Errorf("queries: export receipts: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanAttachment)
	if err != nil || len(list) == 0 {
		return err
	}
	spool, err := os.CreateTemp("", "finledger-receipt-*")
	if err != nil {
		return fmt.Errorf("queries: export receipts: %w", err)
	}
	defer os.Remove(spool.Name()) //nolint:errcheck // a temporary file
	defer spool.Close()           //nolint:errcheck // read only
	var unreadable []string
	for _, a := range list {
		kind, err := spoolReceipt(ctx, open, a.SHA256, spool)
		if errors.Is(err, ErrFileDamaged) {
			unreadable = append(unreadable, fmt.Sprintf("%s (%s, sha256 %s): %v\n", a.ID, deref(a.FileName), a.SHA256, err))
			continue
		}
		if err != nil {
			return fmt.Errorf("queries: export receipt %s: %w", a.ID, err)
		}
		f, err := z.CreateHeader(&zip.FileHeader{Name: "receipts/" + a.ID.String() + "." + kind, Method: zip.Store, Modified: a.CreatedAt})
		if err == nil {
			_, err = io.Copy(f, spool)
		}
		if err != nil {
			return fmt.Errorf("queries: export receipt %s: %w", a.ID, err)
		}
	}
	if len(unreadable) == 0 {
		return nil
	}
	f, err := z.Create("receipts/unreadable.txt")
	if err == nil {
		_, err = io.WriteString(f, "These receipts' files are not stored whole, and are not in this export; finledger verify names them too.\n"+
			strings.Join(unreadable, ""))
	}
	if err != nil {
		return fmt.Errorf("queries: export receipts: %w", err)
	}
	return nil
}

// spoolReceipt reads a receipt's file whole into spool, emptied first, and leaves spool
// at its start; it returns the file's kind.
func spoolReceipt(ctx context.Context, open ReceiptOpener, sha256 string, spool *os.File) (string, error) {
	if err := spool.Truncate(0); err != nil {
		return "", err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	file, kind, err := open(ctx, sha256)
	if err != nil {
		return "", err
	}
	defer file.Close() //nolint:errcheck // read only
	if _, err := io.Copy(spool, file); err != nil {
		return "", err
	}
	_, err = spool.Seek(0, io.SeekStart)
	return kind, err
}

// flushAt moves what w holds to f once it holds at least size bytes.
func flushAt(w *bytes.Buffer, f io.Writer, size int) error {
	if w.Len() < size {
		return nil
	}
	_, err := w.WriteTo(f)
	if err != nil {
		return fmt.Errorf("queries: export: %w", err)
	}
	return nil
}

// each calls fn with each record of the table, as read.
func (t exportTable) each(ctx context.Context, db DB, workspaceID uuid.UUID, fn func(any) error) error {
	rows, err := db.Query(ctx, t.sql, workspaceID)
	if err != nil {
		return fmt.Errorf("queries: export %s: %w", t.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		record, err := t.scan(rows)
		if err == nil {
			err = fn(record)
		}
		if err != nil {
			return fmt.Errorf("queries: export %s: %w", t.name, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("queries: export %s: %w", t.name, err)
	}
	return nil
}

var amountType = reflect.TypeFor[Amount]()

// exportFields are a record's fields as the API names them, in order: each one's JSON
// value and CSV cell. An amount is written with its scale (domain.ExactString); a
// null is an empty cell; text is the cell as it is; anything else (a number, true or
// false, an object) the cell as its JSON. Fields tagged omitempty are left out.
func exportFields(record any) (names []string, values []json.RawMessage, cells []string, err error) {
	v := reflect.ValueOf(record)
	for i := range v.NumField() {
		field := v.Type().Field(i)
		name, options, _ := strings.Cut(field.Tag.Get("json"), ",")
		if !field.IsExported() || name == "" || name == "-" || strings.Contains(options, "omitempty") {
			continue
		}
		value := v.Field(i)
		var raw []byte
		switch {
		case value.Kind() == reflect.Pointer && value.IsNil():
			raw = []byte("null")
		case value.Type() == amountType || (value.Kind() == reflect.Pointer && value.Type().Elem() == amountType):
			raw = []byte(domain.ExactString(decimal.Decimal(reflect.Indirect(value).Interface().(Amount))))
		default:
			if raw, err = json.Marshal(value.Interface()); err != nil {
				return nil, nil, nil, fmt.Errorf("field %s: %w", name, err)
			}
		}
		cell := string(raw)
		switch {
		case cell == "null":
			cell = ""
		case raw[0] == '"':
			if err := json.Unmarshal(raw, &cell); err != nil {
				return nil, nil, nil, fmt.Errorf("field %s: %w", name, err)
			}
		}
		names, values, cells = append(names, name), append(values, raw), append(cells, cell)
	}
	return names, values, cells, nil
}
