/** The audit log's rows (migration 035): written in the actions' transactions, read by admins. */
import type { Queries } from "../kernel/engine.ts";

/** A row as written. */
export interface AuditInsert {
  at: string;
  actorId: number | null;
  actorEmail: string | null;
  action: string;
  targetType: string | null;
  targetId: number | null;
  /** A JSON object's text. */
  details: string;
  clientAddress: string | null;
  requestId: string | null;
}

/** A row as read. */
export interface AuditRow extends AuditInsert {
  id: number;
}

/** What the admin's list filters on; every field optional. */
export interface AuditFilter {
  action?: string;
  actorId?: number;
  targetType?: string;
  /** From this time on (inclusive), an ISO timestamp. */
  from?: string;
  /** Before this time (exclusive), an ISO timestamp. */
  to?: string;
}

/** Writes one row; without `actorEmail`, the actor's email is the one stored now. */
export async function insertAudit(tx: Queries, row: AuditInsert): Promise<void> {
  await tx.run(
    `INSERT INTO audit_log (at, actor_id, actor_email, action, target_type, target_id, details,
       client_address, request_id)
     VALUES (?, ?, COALESCE(?, (SELECT email FROM users WHERE id = ?)), ?, ?, ?, ?, ?, ?)`,
    [
      row.at,
      row.actorId,
      row.actorEmail,
      row.actorId,
      row.action,
      row.targetType,
      row.targetId,
      row.details,
      row.clientAddress,
      row.requestId,
    ],
  );
}

const COLUMNS = `id, at, actor_id AS "actorId", actor_email AS "actorEmail", action,
  target_type AS "targetType", target_id AS "targetId", details,
  client_address AS "clientAddress", request_id AS "requestId"`;

/** A page of rows matching `filter`, newest first, and how many match in all. */
export async function listAudit(
  q: Queries,
  filter: AuditFilter,
  page: { limit: number; offset: number },
): Promise<{ items: AuditRow[]; total: number }> {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filter.action !== undefined) (where.push("action = ?"), params.push(filter.action));
  if (filter.actorId !== undefined) (where.push("actor_id = ?"), params.push(filter.actorId));
  if (filter.targetType !== undefined) {
    where.push("target_type = ?");
    params.push(filter.targetType);
  }
  if (filter.from !== undefined) (where.push("at >= ?"), params.push(filter.from));
  if (filter.to !== undefined) (where.push("at < ?"), params.push(filter.to));
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const [rows, count] = await Promise.all([
    q.all<AuditRow>(
      `SELECT ${COLUMNS} FROM audit_log ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`,
      [...params, page.limit, page.offset],
    ),
    q.get<{ n: number | bigint | string }>(
      `SELECT count(*) AS n FROM audit_log ${clause}`,
      params,
    ),
  ]);
  return {
    items: rows.map((r) => ({
      ...r,
      id: Number(r.id),
      actorId: r.actorId === null ? null : Number(r.actorId),
      targetId: r.targetId === null ? null : Number(r.targetId),
    })),
    total: Number(count?.n ?? 0),
  };
}

/** Deletes up to `limit` rows written at `before` or earlier; how many went. */
export async function sweepAudit(tx: Queries, before: string, limit: number): Promise<number> {
  const { changes } = await tx.run(
    `DELETE FROM audit_log WHERE id IN
       (SELECT id FROM audit_log WHERE at <= ? ORDER BY at LIMIT ?)`,
    [before, limit],
  );
  return changes;
}
