DROP INDEX `audit_events_created_idx`;--> statement-breakpoint
DROP INDEX `audit_events_action_created_idx`;--> statement-breakpoint
DROP INDEX `audit_events_subject_idx`;--> statement-breakpoint
CREATE INDEX `audit_events_created_idx` ON `audit_events` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_action_created_idx` ON `audit_events` (`action`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_subject_idx` ON `audit_events` (`subject_type`,`subject_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `callback_requests_created_idx`;--> statement-breakpoint
CREATE INDEX `callback_requests_created_idx` ON `callback_requests` (`created_at`,`id`);--> statement-breakpoint
DROP INDEX `contact_messages_created_idx`;--> statement-breakpoint
CREATE INDEX `contact_messages_created_idx` ON `contact_messages` (`created_at`,`id`);--> statement-breakpoint
DROP INDEX `reports_patient_created_idx`;--> statement-breakpoint
DROP INDEX `reports_status_created_idx`;--> statement-breakpoint
DROP INDEX `reports_status_type_created_idx`;--> statement-breakpoint
DROP INDEX `reports_expert_reviewed_idx`;--> statement-breakpoint
DROP INDEX `reports_status_reviewed_idx`;--> statement-breakpoint
CREATE INDEX `reports_file_key_idx` ON `reports` (`file_key`);--> statement-breakpoint
CREATE INDEX `reports_patient_created_idx` ON `reports` (`patient_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_created_idx` ON `reports` (`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_type_created_idx` ON `reports` (`status`,`report_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_expert_reviewed_idx` ON `reports` (`expert_id`,`reviewed_at`,`id`);--> statement-breakpoint
CREATE INDEX `reports_status_reviewed_idx` ON `reports` (`status`,`reviewed_at`,`id`);--> statement-breakpoint
DROP INDEX `users_type_approved_created_idx`;--> statement-breakpoint
DROP INDEX `users_type_created_idx`;--> statement-breakpoint
DROP INDEX `users_created_idx`;--> statement-breakpoint
CREATE INDEX `users_image_idx` ON `users` (`image`);--> statement-breakpoint
CREATE INDEX `users_type_approved_created_idx` ON `users` (`account_type`,`approved`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_type_created_idx` ON `users` (`account_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `users_created_idx` ON `users` (`created_at`,`id`);