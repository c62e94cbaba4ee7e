/**
 * The invitations of a project (on its page, for owners) or of the server (on the admin page):
 * the invite form, then the list with each pending invitation's Send again and Revoke buttons.
 * Links are shown once, when made or sent again (only their hash is kept), with a Copy button.
 */
import type { Invitation } from "../../../domain/identity/invitations.ts";
import type { Page } from "../../../domain/kernel/paging.ts";
import { formatDateTime } from "../../i18n/format.ts";
import type { PageCtx } from "../context.ts";
import { Pager, Table } from "./content.tsx";
import { ButtonForm, Field, type FormState, Select } from "./fields.tsx";

/** The state of an invitation as its list shows it. */
export function invitationState(
  i: Invitation,
  now: Date,
): "pending" | "accepted" | "revoked" | "expired" {
  if (i.acceptedAt !== null) return "accepted";
  if (i.revokedAt !== null) return "revoked";
  return Date.parse(i.expiresAt) <= now.getTime() ? "expired" : "pending";
}

/**
 * The invite form and the list. `base` is where the forms post (`/projects/1/invitations` or
 * `/admin/invitations`); `roles` the roles one may invite as; `pager` the path of the paged
 * list (null: a link to it when there is more).
 */
export function InvitationsCard(
  props: {
    ctx: PageCtx;
    base: string;
    roles: ReadonlyArray<"owner" | "member" | "viewer" | "admin">;
    page: Page<Invitation>;
    form: FormState;
    pager: string | null;
  },
) {
  const { ctx, base, page, form } = props;
  const { t, locale, timeZone } = ctx;
  return (
    <div class="card" data-invitations={base}>
      <form class="stack" method="post" action={base} data-invite-form>
        <p class="hint">{t("invitations.inviteHint")}</p>
        <div class="row wrap">
          <Field label={t("field.email")} error={form.errors.email}>
            <input
              name="email"
              type="email"
              required
              maxlength={254}
              autocomplete="off"
              value={form.values.email ?? ""}
            />
          </Field>
          <Field label={t("field.role")} error={form.errors.role}>
            <Select
              name="role"
              value={form.values.role ?? "member"}
              options={props.roles.map((r) => [r, t(`role.${r}`)] as const)}
            />
          </Field>
        </div>
        <div>
          <button type="submit">{t("invitations.invite")}</button>
        </div>
      </form>
      {page.items.length === 0 ? <p class="muted">{t("invitations.none")}</p> : (
        <Table
          heads={[
            t("field.email"),
            t("field.role"),
            t("invitations.state"),
            t("invitations.expires"),
            { hidden: t("content.actions") },
          ]}
        >
          {page.items.map((i) => {
            const state = invitationState(i, ctx.now);
            return (
              <tr data-invitation={i.email} data-state={state}>
                <td>{i.email}</td>
                <td>{t(`role.${i.role}`)}</td>
                <td>{t(`invitations.${state}`)}</td>
                <td class="muted">
                  <time datetime={i.expiresAt}>
                    {formatDateTime(i.expiresAt, locale, timeZone)}
                  </time>
                </td>
                <td>
                  {state === "pending" || state === "expired"
                    ? (
                      <div class="row">
                        <ButtonForm
                          class="inline"
                          action={`${base}/${i.id}/resend`}
                          label={t("invitations.resend")}
                          button="secondary small"
                        />
                        <ButtonForm
                          class="inline"
                          action={`${base}/${i.id}/revoke`}
                          label={t("invitations.revoke")}
                          button="danger small"
                          confirm={t("invitations.revokeConfirm")}
                        />
                      </div>
                    )
                    : null}
                </td>
              </tr>
            );
          })}
        </Table>
      )}
      {props.pager !== null ? <Pager ctx={ctx} page={page} path={props.pager} /> : page.hasMore
        ? (
          <p>
            <a href={base}>{t("invitations.all")}</a>
          </p>
        )
        : null}
    </div>
  );
}
