-- The lists' totals (decision 0031): one row per list, kept exact by triggers on every table a
-- list counts, so any write (the domain, an erasure's cascades, a script) keeps them right and a
-- list reads its total from one row. Filled from the rows already there. Generated once by hand
-- from one table of keys; the two dialects' files hold the same keys.
CREATE TABLE "list_counts" (
	"key" text PRIMARY KEY NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_events_actor_idx" ON "audit_events" USING btree ("actor_id","created_at","id");--> statement-breakpoint
CREATE FUNCTION list_counts_reports() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:st:' || OLD.status || ':' || OLD.report_type AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:p:' || OLD.patient_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:st:' || NEW.status || ':' || NEW.report_type AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:p:' || NEW.patient_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_change AFTER INSERT OR DELETE ON reports FOR EACH ROW EXECUTE FUNCTION list_counts_reports();
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority ON reports FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.report_type IS DISTINCT FROM NEW.report_type OR OLD.patient_id IS DISTINCT FROM NEW.patient_id OR OLD.expert_id IS DISTINCT FROM NEW.expert_id OR OLD.followup_expert_id IS DISTINCT FROM NEW.followup_expert_id OR OLD.priority IS DISTINCT FROM NEW.priority) EXECUTE FUNCTION list_counts_reports();
--> statement-breakpoint
CREATE FUNCTION list_counts_audit_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'a:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'a:a:' || OLD.action AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'a:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'a:a:' || NEW.action AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_audit_events_change AFTER INSERT OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION list_counts_audit_events();
--> statement-breakpoint
CREATE TRIGGER list_counts_audit_events_update AFTER UPDATE OF action ON audit_events FOR EACH ROW
WHEN (OLD.action IS DISTINCT FROM NEW.action) EXECUTE FUNCTION list_counts_audit_events();
--> statement-breakpoint
CREATE FUNCTION list_counts_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'u:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'u:t:' || OLD.account_type AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'u:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'u:t:' || NEW.account_type AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_users_change AFTER INSERT OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION list_counts_users();
--> statement-breakpoint
CREATE TRIGGER list_counts_users_update AFTER UPDATE OF account_type ON users FOR EACH ROW
WHEN (OLD.account_type IS DISTINCT FROM NEW.account_type) EXECUTE FUNCTION list_counts_users();
--> statement-breakpoint
CREATE FUNCTION list_counts_contact_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cm:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'cm:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_contact_messages_change AFTER INSERT OR DELETE ON contact_messages FOR EACH ROW EXECUTE FUNCTION list_counts_contact_messages();
--> statement-breakpoint
CREATE FUNCTION list_counts_callback_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cb:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'cb:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_callback_requests_change AFTER INSERT OR DELETE ON callback_requests FOR EACH ROW EXECUTE FUNCTION list_counts_callback_requests();
--> statement-breakpoint
CREATE FUNCTION list_counts_sms_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'sms:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'sms:s:' || OLD.status AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'sms:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'sms:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_sms_messages_change AFTER INSERT OR DELETE ON sms_messages FOR EACH ROW EXECUTE FUNCTION list_counts_sms_messages();
--> statement-breakpoint
CREATE TRIGGER list_counts_sms_messages_update AFTER UPDATE OF status ON sms_messages FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION list_counts_sms_messages();
--> statement-breakpoint
CREATE FUNCTION list_counts_rights_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'rr:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'rr:s:' || OLD.status AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'rr:t:' || OLD.type AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'rr:st:' || OLD.status || ':' || OLD.type AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'rr:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'rr:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'rr:t:' || NEW.type AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'rr:st:' || NEW.status || ':' || NEW.type AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_rights_requests_change AFTER INSERT OR DELETE ON rights_requests FOR EACH ROW EXECUTE FUNCTION list_counts_rights_requests();
--> statement-breakpoint
CREATE TRIGGER list_counts_rights_requests_update AFTER UPDATE OF status, type ON rights_requests FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.type IS DISTINCT FROM NEW.type) EXECUTE FUNCTION list_counts_rights_requests();
--> statement-breakpoint
CREATE FUNCTION list_counts_centres() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'c:all' AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'c:all' AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_centres_change AFTER INSERT OR DELETE ON centres FOR EACH ROW EXECUTE FUNCTION list_counts_centres();
--> statement-breakpoint
CREATE FUNCTION list_counts_patients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_change AFTER INSERT OR DELETE ON patients FOR EACH ROW EXECUTE FUNCTION list_counts_patients();
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_update AFTER UPDATE OF centre_id, centre_access_revoked_at ON patients FOR EACH ROW
WHEN (OLD.centre_id IS DISTINCT FROM NEW.centre_id OR OLD.centre_access_revoked_at IS DISTINCT FROM NEW.centre_access_revoked_at) EXECUTE FUNCTION list_counts_patients();
--> statement-breakpoint
INSERT INTO list_counts (key, n)
SELECT k, count(*) FROM (
  SELECT 'r:s:' || reports.status AS k FROM reports
  UNION ALL SELECT 'r:sp:' || reports.status || ':' || reports.priority AS k FROM reports
  UNION ALL SELECT 'r:st:' || reports.status || ':' || reports.report_type AS k FROM reports
  UNION ALL SELECT 'r:p:' || reports.patient_id AS k FROM reports
  UNION ALL SELECT 'r:e:' || reports.expert_id AS k FROM reports
  UNION ALL SELECT 'r:f:' || reports.followup_expert_id AS k FROM reports
  UNION ALL SELECT 'a:all' AS k FROM audit_events
  UNION ALL SELECT 'a:a:' || audit_events.action AS k FROM audit_events
  UNION ALL SELECT 'u:all' AS k FROM users
  UNION ALL SELECT 'u:t:' || users.account_type AS k FROM users
  UNION ALL SELECT 'cm:all' AS k FROM contact_messages
  UNION ALL SELECT 'cb:all' AS k FROM callback_requests
  UNION ALL SELECT 'sms:all' AS k FROM sms_messages
  UNION ALL SELECT 'sms:s:' || sms_messages.status AS k FROM sms_messages
  UNION ALL SELECT 'rr:all' AS k FROM rights_requests
  UNION ALL SELECT 'rr:s:' || rights_requests.status AS k FROM rights_requests
  UNION ALL SELECT 'rr:t:' || rights_requests.type AS k FROM rights_requests
  UNION ALL SELECT 'rr:st:' || rights_requests.status || ':' || rights_requests.type AS k FROM rights_requests
  UNION ALL SELECT 'c:all' AS k FROM centres
  UNION ALL SELECT CASE WHEN patients.centre_access_revoked_at IS NULL THEN 'pc:' || patients.centre_id END AS k FROM patients
) v WHERE k IS NOT NULL GROUP BY k;
