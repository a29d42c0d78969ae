ALTER TABLE `reports` ADD `second_of` text REFERENCES reports(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `reports` ADD `second_specialty` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `second_note` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `second_requested_by` text REFERENCES users(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `reports` ADD `agreement` text;--> statement-breakpoint
ALTER TABLE `reports` ADD `agreement_reason` text;--> statement-breakpoint
CREATE INDEX `reports_second_of_idx` ON `reports` (`second_of`);--> statement-breakpoint
CREATE INDEX `reports_second_queue_idx` ON `reports` (`status`,`second_specialty`,`priority`,`created_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reports_second_open_uq` ON `reports` (`second_of`,`second_specialty`) WHERE "reports"."status" = 'Pending' and "reports"."second_of" is not null;
--> statement-breakpoint
-- Second opinions (decision 0038) live in reports, but the patient's list and the per-type queues
-- count first opinions only (a second opinion is shown inside its case); second opinions are
-- counted per requested specialty (r:ss:status:specialty), the queue their experts see. Written by
-- hand: the triggers of the list counts (decision 0031) replaced, and those keys counted again.
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
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty ON reports
WHEN OLD.status IS NOT NEW.status OR OLD.report_type IS NOT NEW.report_type OR OLD.patient_id IS NOT NEW.patient_id OR OLD.expert_id IS NOT NEW.expert_id OR OLD.followup_expert_id IS NOT NEW.followup_expert_id OR OLD.priority IS NOT NEW.priority OR OLD.second_of IS NOT NEW.second_of OR OLD.second_specialty IS NOT NEW.second_specialty BEGIN
  INSERT INTO list_counts (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:st:' || OLD.status || ':' || OLD.report_type END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:p:' || OLD.patient_id END AS k, -1 AS d
    UNION ALL SELECT CASE WHEN OLD.second_of IS NOT NULL THEN 'r:ss:' || OLD.status || ':' || OLD.second_specialty END AS k, -1 AS d
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
DELETE FROM list_counts WHERE key LIKE 'r:st:%' OR key LIKE 'r:p:%' OR key LIKE 'r:ss:%';
--> statement-breakpoint
INSERT INTO list_counts (key, n)
SELECT k, count(*) FROM (
  SELECT CASE WHEN second_of IS NULL THEN 'r:st:' || status || ':' || report_type END AS k FROM reports
  UNION ALL SELECT CASE WHEN second_of IS NULL THEN 'r:p:' || patient_id END AS k FROM reports
  UNION ALL SELECT CASE WHEN second_of IS NOT NULL THEN 'r:ss:' || status || ':' || second_specialty END AS k FROM reports
) v WHERE k IS NOT NULL GROUP BY k;
