// Package attachments owns the files of receipts attached to transactions: a file sent
// spooled to a temporary file as it comes (Spool), its kind told from its content. The
// events that attach a file and the HTTP endpoints are not here: they name a file by the
// hash this package gives.
package attachments
