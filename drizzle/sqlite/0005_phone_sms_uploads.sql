CREATE TABLE `sms_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`to` text NOT NULL,
	`text` text NOT NULL,
	`purpose` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`locked_until` integer,
	`last_error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `sms_messages_due_idx` ON `sms_messages` (`status`,`next_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `sms_messages_created_idx` ON `sms_messages` (`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `upload_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`length` integer NOT NULL,
	`received` integer DEFAULT 0 NOT NULL,
	`segments` integer DEFAULT 0 NOT NULL,
	`metadata` text NOT NULL,
	`report_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `upload_sessions_owner_idx` ON `upload_sessions` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `upload_sessions_updated_idx` ON `upload_sessions` (`updated_at`);--> statement-breakpoint
DROP INDEX `users_email_uq`;--> statement-breakpoint
ALTER TABLE `users` ADD `phone` text;--> statement-breakpoint
ALTER TABLE `users` ADD `notify` text DEFAULT 'email' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `users_phone_uq` ON `users` (`phone`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`email`) WHERE "users"."email" <> '';--> statement-breakpoint
ALTER TABLE `verification_codes` ADD `phone` text;--> statement-breakpoint
CREATE INDEX `verification_codes_phone_idx` ON `verification_codes` (`phone`,`purpose`,`created_at`);