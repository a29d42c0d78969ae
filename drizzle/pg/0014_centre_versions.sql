-- Each centre's version (decision 0047): a counter 'v:c:<centre>' that goes up on every write that
-- adds, removes or changes a report of the centre (its times too), so a node may keep a centre's 30-day turnaround
-- figures until the version moves. It only ever goes up (the recount keeps it).
-- Written by hand: the counters' report function re-created with one more key, and its update
-- trigger also fired by the times.
CREATE OR REPLACE FUNCTION list_counts_reports() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Keys in one order, so concurrent writers lock the counter rows in the same order.
  INSERT INTO list_counts AS c (key, n)
  SELECT k, sum(d) FROM (
    SELECT 'r:s:' || OLD.status AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:sp:' || OLD.status || ':' || OLD.priority AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:st:' || OLD.status || ':' || OLD.report_type END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NULL THEN 'r:p:' || OLD.patient_id END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT CASE WHEN OLD.second_of IS NOT NULL THEN 'r:ss:' || OLD.status || ':' || OLD.second_specialty END AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:e:' || OLD.expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:f:' || OLD.followup_expert_id AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:cs:' || OLD.centre_id || ':' || OLD.status || ':' || OLD.priority AS k, -1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:cs:' || NEW.centre_id || ':' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'v:c:' || OLD.centre_id AS k, 1 AS d WHERE TG_OP <> 'INSERT'
    UNION ALL SELECT 'v:c:' || NEW.centre_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_update ON reports;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty, centre_id, created_at, reviewed_at ON reports FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.report_type IS DISTINCT FROM NEW.report_type OR OLD.patient_id IS DISTINCT FROM NEW.patient_id OR OLD.expert_id IS DISTINCT FROM NEW.expert_id OR OLD.followup_expert_id IS DISTINCT FROM NEW.followup_expert_id OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.second_of IS DISTINCT FROM NEW.second_of OR OLD.second_specialty IS DISTINCT FROM NEW.second_specialty OR OLD.centre_id IS DISTINCT FROM NEW.centre_id OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.reviewed_at IS DISTINCT FROM NEW.reviewed_at) EXECUTE FUNCTION list_counts_reports();
