package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// A database blip — PostgreSQL restarted, a connection killed, a network
// reset — leaves the pool holding connections that are broken but look
// idle and ready. The store opens PostgreSQL through retryConnector, whose
// connections report themselves broken (driver.ErrBadConn) when a
// statement that changes nothing fails because its connection broke: a
// BEGIN, a PREPARE, or a SELECT outside a transaction. database/sql then
// drops that connection and tries the statement again on another one, a
// new one at the latest. A statement that may have changed something (an
// INSERT, an UPDATE, a COMMIT, anything inside a transaction) is not
// retried on its own: whether it took effect is unknown, so its error
// goes back to the caller, whose retry is made safe by the request's
// client-chosen id and by the decisions' exactly-once update.
//
// A transaction's broken pooled connection is found at its BEGIN and never
// fails its writes. A write that is one statement of its own (a decision
// on PostgreSQL) can meet a broken connection; it fails with an error
// Unavailable recognizes (a server answers 503), and its retry is safe:
// exactly one closer of a request wins.

// openPostgres opens the PostgreSQL database at url with connections that
// are dropped and retried when broken.
func openPostgres(url string) (*sql.DB, error) {
	dc, ok := stdlib.GetDefaultDriver().(driver.DriverContext)
	if !ok {
		return nil, errors.New("pgx's driver cannot open connectors")
	}
	c, err := dc.OpenConnector(url)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(retryConnector{c}), nil
}

// retryConnector makes retryConns.
type retryConnector struct{ driver.Connector }

// Connect opens a connection.
func (c retryConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("pgx's driver made a %T, not a *stdlib.Conn", conn)
	}
	return &retryConn{Conn: pc}, nil
}

// retryConn is a pgx connection that says it is broken (driver.ErrBadConn)
// when a statement that changes nothing failed because the connection
// broke, so that database/sql drops it and retries the statement on
// another connection. database/sql uses a connection from one goroutine
// at a time.
type retryConn struct {
	*stdlib.Conn
	inTx bool // a transaction is open: its statements are never retried
}

// broke reports whether err, from a statement under ctx, failed because
// the connection broke (rather than because ctx ended, or the server
// refused the statement on a connection that still works).
func (c *retryConn) broke(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && c.Conn.Conn().IsClosed()
}

// readOnly reports whether query changes nothing and may be sent twice:
// the store's SELECTs outside transactions read (they notify, take locks
// and advance sequences only inside transactions).
func readOnly(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select")
}

// BeginTx begins a transaction; a BEGIN that failed on a broken
// connection is retried by database/sql on another.
func (c *retryConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		if c.broke(ctx, err) {
			return nil, driver.ErrBadConn
		}
		return nil, err
	}
	c.inTx = true
	return retryTx{tx, c}, nil
}

// Begin begins a transaction.
func (c *retryConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// PrepareContext prepares query; a PREPARE that failed on a broken
// connection is retried by database/sql on another.
func (c *retryConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		if c.broke(ctx, err) {
			return nil, driver.ErrBadConn
		}
		return nil, err
	}
	ps, ok := st.(*stdlib.Stmt)
	if !ok {
		return st, nil
	}
	return &retryStmt{Stmt: ps, c: c, readOnly: readOnly(query)}, nil
}

// Prepare prepares query.
func (c *retryConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// QueryContext runs query; a read outside a transaction that failed on a
// broken connection is retried by database/sql on another.
func (c *retryConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, query, args)
	if err != nil && !c.inTx && readOnly(query) && c.broke(ctx, err) {
		return nil, driver.ErrBadConn
	}
	return rows, err
}

// ExecContext runs query, retried like QueryContext.
func (c *retryConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, query, args)
	if err != nil && !c.inTx && readOnly(query) && c.broke(ctx, err) {
		return nil, driver.ErrBadConn
	}
	return res, err
}

// retryTx is a transaction of a retryConn.
type retryTx struct {
	driver.Tx
	c *retryConn
}

// Commit commits; it is never retried (it may have taken effect).
func (t retryTx) Commit() error {
	t.c.inTx = false
	return t.Tx.Commit()
}

// Rollback rolls back.
func (t retryTx) Rollback() error {
	t.c.inTx = false
	return t.Tx.Rollback()
}

// retryStmt is a prepared statement of a retryConn, retried like the
// connection's own statements.
type retryStmt struct {
	*stdlib.Stmt
	c        *retryConn
	readOnly bool
}

// QueryContext runs the statement.
func (s *retryStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := s.Stmt.QueryContext(ctx, args)
	if err != nil && !s.c.inTx && s.readOnly && s.c.broke(ctx, err) {
		return nil, driver.ErrBadConn
	}
	return rows, err
}

// ExecContext runs the statement.
func (s *retryStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	res, err := s.Stmt.ExecContext(ctx, args)
	if err != nil && !s.c.inTx && s.readOnly && s.c.broke(ctx, err) {
		return nil, driver.ErrBadConn
	}
	return res, err
}

// Unavailable reports whether err says the database could not be reached
// or its connection broke — a blip worth trying again after a moment (a
// server answers 503) — rather than a refusal or a bug.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	var ne *net.OpError
	switch {
	case errors.As(err, &ce), errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, net.ErrClosed), errors.As(err, &ne):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; class 57P: the server is
		// shutting down, starting up, or ended the connection.
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	return strings.Contains(err.Error(), "conn closed")
}
