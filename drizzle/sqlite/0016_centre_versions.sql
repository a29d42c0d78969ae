-- Each centre's version (decision 0047): a counter 'v:c:<centre>' that goes up on every write that
-- adds, removes or changes a report of the centre (its times too), so a node may keep a centre's 30-day turnaround
-- figures until the version moves. It only ever goes up (the recount keeps it).
-- Written by hand: the counters' report triggers re-created with one more key.
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
    UNION ALL SELECT 'v:c:' || NEW.centre_id AS k, 1 AS d
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
    UNION ALL SELECT 'v:c:' || OLD.centre_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty, centre_id, created_at, reviewed_at ON reports
WHEN OLD.status IS NOT NEW.status OR OLD.report_type IS NOT NEW.report_type OR OLD.patient_id IS NOT NEW.patient_id OR OLD.expert_id IS NOT NEW.expert_id OR OLD.followup_expert_id IS NOT NEW.followup_expert_id OR OLD.priority IS NOT NEW.priority OR OLD.second_of IS NOT NEW.second_of OR OLD.second_specialty IS NOT NEW.second_specialty OR OLD.centre_id IS NOT NEW.centre_id OR OLD.created_at IS NOT NEW.created_at OR OLD.reviewed_at IS NOT NEW.reviewed_at BEGIN
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
    UNION ALL SELECT 'v:c:' || OLD.centre_id AS k, 1 AS d
    UNION ALL SELECT 'v:c:' || NEW.centre_id AS k, 1 AS d
  ) WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0
  ON CONFLICT (key) DO UPDATE SET n = n + excluded.n;
END;
