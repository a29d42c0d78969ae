-- The lists' totals (decision 0031): one row per list, kept exact by triggers on every table a
-- list counts, so any write (the domain, an erasure's cascades, a script) keeps them right and a
-- list reads its total from one row. Filled from the rows already there. Generated once by hand
-- from one table of keys; the two dialects' files hold the same keys.
CREATE TABLE `list_counts` (
	`key` text PRIMARY KEY NOT NULL,
	`n` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_actor_idx` ON `audit_events` (`actor_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TRIGGER list_counts_reports_insert AFTER INSERT ON reports BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d
    UNION ALL SELECT 'r:st:' || NEW.status || ':' || NEW.report_type AS k, 1 AS d
    UNION ALL SELECT 'r:p:' || NEW.patient_id AS k, 1 AS d
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_delete AFTER DELETE ON reports BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT 'r:st:' || OLD.status || ':' || OLD.report_type AS k, -1 AS d
    UNION ALL SELECT 'r:p:' || OLD.patient_id AS k, -1 AS d
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority ON reports
WHEN OLD.status IS NOT NEW.status OR OLD.report_type IS NOT NEW.report_type OR OLD.patient_id IS NOT NEW.patient_id OR OLD.expert_id IS NOT NEW.expert_id OR OLD.followup_expert_id IS NOT NEW.followup_expert_id OR OLD.priority IS NOT NEW.priority BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT 'r:st:' || OLD.status || ':' || OLD.report_type AS k, -1 AS d
    UNION ALL SELECT 'r:p:' || OLD.patient_id AS k, -1 AS d
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d
    UNION ALL SELECT 'r:st:' || NEW.status || ':' || NEW.report_type AS k, 1 AS d
    UNION ALL SELECT 'r:p:' || NEW.patient_id AS k, 1 AS d
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_audit_events_insert AFTER INSERT ON audit_events BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'a:all' AS k, 1 AS d
    UNION ALL SELECT 'a:a:' || NEW.action AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_audit_events_delete AFTER DELETE ON audit_events BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'a:all' AS k, -1 AS d
    UNION ALL SELECT 'a:a:' || OLD.action AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_audit_events_update AFTER UPDATE OF action ON audit_events
WHEN OLD.action IS NOT NEW.action BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'a:all' AS k, -1 AS d
    UNION ALL SELECT 'a:a:' || OLD.action AS k, -1 AS d
    UNION ALL SELECT 'a:all' AS k, 1 AS d
    UNION ALL SELECT 'a:a:' || NEW.action AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_users_insert AFTER INSERT ON users BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'u:all' AS k, 1 AS d
    UNION ALL SELECT 'u:t:' || NEW.account_type AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_users_delete AFTER DELETE ON users BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'u:all' AS k, -1 AS d
    UNION ALL SELECT 'u:t:' || OLD.account_type AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_users_update AFTER UPDATE OF account_type ON users
WHEN OLD.account_type IS NOT NEW.account_type BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'u:all' AS k, -1 AS d
    UNION ALL SELECT 'u:t:' || OLD.account_type AS k, -1 AS d
    UNION ALL SELECT 'u:all' AS k, 1 AS d
    UNION ALL SELECT 'u:t:' || NEW.account_type AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_contact_messages_insert AFTER INSERT ON contact_messages BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cm:all' AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_contact_messages_delete AFTER DELETE ON contact_messages BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cm:all' AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_callback_requests_insert AFTER INSERT ON callback_requests BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cb:all' AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_callback_requests_delete AFTER DELETE ON callback_requests BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'cb:all' AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_sms_messages_insert AFTER INSERT ON sms_messages BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'sms:all' AS k, 1 AS d
    UNION ALL SELECT 'sms:s:' || NEW.status AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_sms_messages_delete AFTER DELETE ON sms_messages BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'sms:all' AS k, -1 AS d
    UNION ALL SELECT 'sms:s:' || OLD.status AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_sms_messages_update AFTER UPDATE OF status ON sms_messages
WHEN OLD.status IS NOT NEW.status BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'sms:all' AS k, -1 AS d
    UNION ALL SELECT 'sms:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'sms:all' AS k, 1 AS d
    UNION ALL SELECT 'sms:s:' || NEW.status AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_rights_requests_insert AFTER INSERT ON rights_requests BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'rr:all' AS k, 1 AS d
    UNION ALL SELECT 'rr:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'rr:t:' || NEW.type AS k, 1 AS d
    UNION ALL SELECT 'rr:st:' || NEW.status || ':' || NEW.type AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_rights_requests_delete AFTER DELETE ON rights_requests BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'rr:all' AS k, -1 AS d
    UNION ALL SELECT 'rr:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'rr:t:' || OLD.type AS k, -1 AS d
    UNION ALL SELECT 'rr:st:' || OLD.status || ':' || OLD.type AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_rights_requests_update AFTER UPDATE OF status, type ON rights_requests
WHEN OLD.status IS NOT NEW.status OR OLD.type IS NOT NEW.type BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'rr:all' AS k, -1 AS d
    UNION ALL SELECT 'rr:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'rr:t:' || OLD.type AS k, -1 AS d
    UNION ALL SELECT 'rr:st:' || OLD.status || ':' || OLD.type AS k, -1 AS d
    UNION ALL SELECT 'rr:all' AS k, 1 AS d
    UNION ALL SELECT 'rr:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'rr:t:' || NEW.type AS k, 1 AS d
    UNION ALL SELECT 'rr:st:' || NEW.status || ':' || NEW.type AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_centres_insert AFTER INSERT ON centres BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'c:all' AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_centres_delete AFTER DELETE ON centres BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'c:all' AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_insert AFTER INSERT ON patients BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_delete AFTER DELETE ON patients BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_update AFTER UPDATE OF centre_id, centre_access_revoked_at ON patients
WHEN OLD.centre_id IS NOT NEW.centre_id OR OLD.centre_access_revoked_at IS NOT NEW.centre_access_revoked_at BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
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
