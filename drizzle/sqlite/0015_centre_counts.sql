ALTER TABLE `reports` ADD `centre_id` text REFERENCES centres(id) ON DELETE set null;--> statement-breakpoint
CREATE INDEX `reports_live_claims_idx` ON `reports` (`status`,`claim_expires_at`);--> statement-breakpoint
CREATE INDEX `reports_centre_queue_idx` ON `reports` (`centre_id`,`status`,`priority`,`created_at`,`id`) WHERE "reports"."centre_id" is not null;--> statement-breakpoint
CREATE INDEX `reports_centre_reviewed_idx` ON `reports` (`centre_id`,`status`,`reviewed_at`) WHERE "reports"."centre_id" is not null;
--> statement-breakpoint
-- A centre's figures (decision 0046): each report carries its patient profile's centre, copied by a
-- trigger when it is written; the list counters (decision 0031) also count each centre's reports
-- by status and priority (r:cs:centre:status:priority) and its registered profiles (p:c:centre).
-- Written by hand: the column filled, the counters' triggers replaced, and the new keys counted.
UPDATE reports SET centre_id = (SELECT patients.centre_id FROM patients WHERE patients.id = reports.patient_id)
WHERE centre_id IS NULL AND patient_id IN (SELECT id FROM patients WHERE centre_id IS NOT NULL);
--> statement-breakpoint
-- A report written without its centre gets its profile's (the update below is counted as a move).
CREATE TRIGGER reports_centre_fill AFTER INSERT ON reports
WHEN NEW.centre_id IS NULL AND EXISTS (SELECT 1 FROM patients WHERE patients.id = NEW.patient_id AND patients.centre_id IS NOT NULL) BEGIN
  UPDATE reports SET centre_id = (SELECT patients.centre_id FROM patients WHERE patients.id = NEW.patient_id) WHERE id = NEW.id;
END;
--> statement-breakpoint
-- A profile moved to another centre (or its centre removed) takes its reports along.
CREATE TRIGGER reports_centre_follow AFTER UPDATE OF centre_id ON patients
WHEN OLD.centre_id IS NOT NEW.centre_id BEGIN
  UPDATE reports SET centre_id = NEW.centre_id WHERE patient_id = NEW.id;
END;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_insert;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_delete;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_update;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_insert AFTER INSERT ON reports BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:cs:' || NEW.centre_id || ':' || NEW.status || ':' || NEW.priority AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_delete AFTER DELETE ON reports BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:st:' || OLD.status || ':' || OLD.report_type END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:p:' || OLD.patient_id END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NOT NULL THEN 'r:ss:' || OLD.status || ':' || OLD.second_specialty END AS k, -1 AS d
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:cs:' || OLD.centre_id || ':' || OLD.status || ':' || OLD.priority AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty, centre_id ON reports
WHEN OLD.status IS NOT NEW.status OR OLD.report_type IS NOT NEW.report_type OR OLD.patient_id IS NOT NEW.patient_id OR OLD.expert_id IS NOT NEW.expert_id OR OLD.followup_expert_id IS NOT NEW.followup_expert_id OR OLD.priority IS NOT NEW.priority OR OLD.second_of IS NOT NEW.second_of OR OLD.second_specialty IS NOT NEW.second_specialty OR OLD.centre_id IS NOT NEW.centre_id BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:st:' || OLD.status || ':' || OLD.report_type END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:p:' || OLD.patient_id END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NOT NULL THEN 'r:ss:' || OLD.status || ':' || OLD.second_specialty END AS k, -1 AS d
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:cs:' || OLD.centre_id || ':' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:cs:' || NEW.centre_id || ':' || NEW.status || ':' || NEW.priority AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
DROP TRIGGER list_counts_patients_insert;
--> statement-breakpoint
DROP TRIGGER list_counts_patients_delete;
--> statement-breakpoint
DROP TRIGGER list_counts_patients_update;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_insert AFTER INSERT ON patients BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d
    UNION ALL SELECT 'p:c:' || NEW.centre_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_delete AFTER DELETE ON patients BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d
    UNION ALL SELECT 'p:c:' || OLD.centre_id AS k, -1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_patients_update AFTER UPDATE OF centre_id, centre_access_revoked_at ON patients
WHEN OLD.centre_id IS NOT NEW.centre_id OR OLD.centre_access_revoked_at IS NOT NEW.centre_access_revoked_at BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT CASE WHEN OLD.centre_access_revoked_at IS NULL THEN 'pc:' || OLD.centre_id END AS k, -1 AS d
    UNION ALL SELECT 'p:c:' || OLD.centre_id AS k, -1 AS d
    UNION ALL SELECT CASE WHEN NEW.centre_access_revoked_at IS NULL THEN 'pc:' || NEW.centre_id END AS k, 1 AS d
    UNION ALL SELECT 'p:c:' || NEW.centre_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
INSERT INTO list_counts (key, n)
SELECT k, count(*) FROM (
  SELECT 'r:cs:' || reports.centre_id || ':' || reports.status || ':' || reports.priority AS k FROM reports
  UNION ALL SELECT 'p:c:' || patients.centre_id AS k FROM patients
) v WHERE k IS NOT NULL GROUP BY k;
