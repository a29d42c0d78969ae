ALTER TABLE "reports" ADD COLUMN "second_of" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "second_specialty" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "second_note" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "second_requested_by" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "agreement" text;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "agreement_reason" text;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_second_of_reports_id_fk" FOREIGN KEY ("second_of") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_second_requested_by_users_id_fk" FOREIGN KEY ("second_requested_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_second_of_idx" ON "reports" USING btree ("second_of");--> statement-breakpoint
CREATE INDEX "reports_second_queue_idx" ON "reports" USING btree ("status","second_specialty","priority","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "reports_second_open_uq" ON "reports" USING btree ("second_of","second_specialty") WHERE "reports"."status" = 'Pending' and "reports"."second_of" is not null;
--> statement-breakpoint
-- Second opinions (decision 0038) live in reports, but the patient's list and the per-type queues
-- count first opinions only (a second opinion is shown inside its case); second opinions are
-- counted per requested specialty (r:ss:status:specialty), the queue their experts see. Written by
-- hand: the triggers of the list counts (decision 0031) replaced, and those keys counted again.
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
    UNION ALL SELECT 'r:s:' || NEW.status AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:sp:' || NEW.status || ':' || NEW.priority AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:st:' || NEW.status || ':' || NEW.report_type END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NULL THEN 'r:p:' || NEW.patient_id END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT CASE WHEN NEW.second_of IS NOT NULL THEN 'r:ss:' || NEW.status || ':' || NEW.second_specialty END AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:e:' || NEW.expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
    UNION ALL SELECT 'r:f:' || NEW.followup_expert_id AS k, 1 AS d WHERE TG_OP <> 'DELETE'
  ) v WHERE k IS NOT NULL GROUP BY k HAVING sum(d) <> 0 ORDER BY k
  ON CONFLICT (key) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER list_counts_reports_update ON reports;
--> statement-breakpoint
CREATE TRIGGER list_counts_reports_update AFTER UPDATE OF status, report_type, patient_id, expert_id, followup_expert_id, priority, second_of, second_specialty ON reports FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.report_type IS DISTINCT FROM NEW.report_type OR OLD.patient_id IS DISTINCT FROM NEW.patient_id OR OLD.expert_id IS DISTINCT FROM NEW.expert_id OR OLD.followup_expert_id IS DISTINCT FROM NEW.followup_expert_id OR OLD.priority IS DISTINCT FROM NEW.priority OR OLD.second_of IS DISTINCT FROM NEW.second_of OR OLD.second_specialty IS DISTINCT FROM NEW.second_specialty) EXECUTE FUNCTION list_counts_reports();
--> statement-breakpoint
DELETE FROM list_counts WHERE key LIKE 'r:st:%' OR key LIKE 'r:p:%' OR key LIKE 'r:ss:%';
--> statement-breakpoint
INSERT INTO list_counts (key, n)
SELECT k, count(*) FROM (
  SELECT CASE WHEN second_of IS NULL THEN 'r:st:' || status || ':' || report_type END AS k FROM reports
  UNION ALL SELECT CASE WHEN second_of IS NULL THEN 'r:p:' || patient_id END AS k FROM reports
  UNION ALL SELECT CASE WHEN second_of IS NOT NULL THEN 'r:ss:' || status || ':' || second_specialty END AS k FROM reports
) v WHERE k IS NOT NULL GROUP BY k;
