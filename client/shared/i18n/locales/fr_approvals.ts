import type { Dictionary } from "./en.ts";

/**
 * French, spread by fr.ts (which says which part holds what):
 * approval detail, edit, request rules (`request.`), comments, documents (`doc.`), VAT lines,
 * the card and 3-D Secure texts of the detail screens, push, mail and relay: the keys from
 * `approval.title` to the end.
 */
export const frApprovals = {
  "approval.title": "Approbation {id}",
  "approval.status": "Statut",
  "approval.amount": "Montant",
  "approval.relatedEntity": "Demande",
  "approval.type": "Type de demande",
  "approval.author": "Demandeur",
  "approval.account": "Compte d’approbation",
  "approval.issueDate": "Date d’émission",
  "approval.description": "Libellé",
  "approval.purpose": "Objet",
  "approval.costCenter": "Centre de coûts",
  "approval.ledger": "Code GL",
  "approval.project": "Code projet",
  "approval.approvers": "Approbateurs",
  "approval.noMembers": "Aucun membre",
  "approval.pollLevels": "Niveaux d’approbation",
  "approval.level": "Niveau {level}",
  "approval.quota": "Approbations requises : {count}",
  "approval.delegation": "Équipe de délégation : {team}",
  "approval.openedOn": "Ouvert le {date}",
  "approval.notOpened": "Pas encore ouvert",
  "approval.levelStatus.pending": "En attente",
  "approval.levelStatus.open": "Ouvert",
  "approval.levelStatus.approved": "Approuvé",
  "approval.levelStatus.rejected": "Refusé",
  "approval.levelStatus.cancelled": "Annulé",
  "approval.votes": "Votes exprimés",
  "approval.noVotes": "Aucun vote pour le moment",
  "approval.vote.approved": "Approuvé",
  "approval.vote.rejected": "Refusé",
  "approval.vote.reviewed": "Examiné",
  "approval.delegated": "par délégation",
  "approval.teams": "Équipes",
  "approval.showTeams": "Afficher toutes les équipes",
  "approval.approve": "Approuver",
  "pin.confirm": "Saisissez de nouveau le même code PIN",
  "pin.differ": "Les codes PIN diffèrent",
  "approval.rejectHint":
    "Met fin à l’approbation : la demande est refusée et son demandeur en est informé.",
  "approval.reasonOptional": "Motif du refus (facultatif)",
  "approval.reasonShown": "Le demandeur voit ce motif sur la demande.",
  "budget.preview":
    "{count, plural, one {# date} many {# de dates} other {# dates}}, du {first} au {last}",
  "approvals.youApproved": "Approuvé par vous",
  "approvals.youRejected": "Rejeté par vous",
  "approval.reject": "Refuser",
  "approval.edit": "Modifier",
  "approval.approveConfirm": "Approuver {what} ?",
  "approval.rejectConfirm": "Refuser {what} ?",
  "approval.decisionExtra": "« {description} »",
  "approval.approving": "Approbation en cours…",
  "approval.rejecting": "Refus en cours…",
  "approval.approvedNotice": "Approuvée : {what}",
  "approval.rejectedNotice": "Refusée : {what}",
  "approval.editConfirm": "Annuler l’approbation et la recréer ?",
  "approval.recreate": "Recréer l’approbation",
  "approval.editExtra":
    "Les votes déjà exprimés sont supprimés et les approbateurs statuent de nouveau.",
  "approval.recreated": "Une nouvelle approbation a été ouverte pour {what}",
  "approval.rejectNoteTitle": "Motif du refus",
  "approval.rejectNoteHelp": "Ce type exige un commentaire avant un refus.",
  "approval.rejectNoteSend": "Ajouter le commentaire et refuser",
  "approval.inAccountCurrency": "≈ {amount} dans la devise du compte (cours du {date})",
  "approval.budgetOnce": "{amount} le {date}",
  "approval.budgetMonthly": "{count} × {amount} par mois, jusqu’en {last}",
  "approval.budgetWeekly": "{count} × {amount} par semaine, jusqu’au {last}",
  "approval.why.title": "Lecture seule :",
  "approval.why.own": "Vous avez fait cette demande : d’autres approbateurs en décident.",
  "approval.why.decided": "Elle a déjà été décidée : il n’y a plus rien à décider.",
  "approval.why.approvedBy":
    "{name} a donné l’approbation finale le {date} : il n’y a plus rien à décider.",
  "approval.why.rejectedBy": "{name} l’a refusée le {date} : il n’y a plus rien à décider.",
  "approval.why.cancelled":
    "Cette approbation a été annulée (sa demande a été modifiée ou retirée) : il n’y a plus rien à décider.",
  "approval.why.votedHere":
    "Vous l’avez approuvée le {date} ; le niveau {level} ({action}) attend encore les votes d’autres approbateurs.",
  "approval.why.votedBefore":
    "Vous avez approuvé le niveau {mine} le {date} ; le niveau {level} ({action}) décide maintenant.",
  "approval.why.barred":
    "Vous avez modifié cette demande après la décision du niveau {level} : d’autres approbateurs en décident.",
  "approval.why.waiting":
    "Le niveau {level} ({action}) décide d’abord ; vous décidez au niveau {mine} une fois celui-ci approuvé.",
  "approval.why.passed":
    "{name} a approuvé le niveau {mine} le {date} ; le niveau {level} ({action}) décide maintenant.",
  "approval.why.reviewer":
    "Le niveau {level} ({action}) en décide ; vous pouvez la suivre, pas en décider.",
  "approval.next": "Suivante",
  "approval.next.waiting":
    "{count, plural, one {# autre approbation vous attend} many {# d’autres approbations vous attendent} other {# autres approbations vous attendent}}.",
  "approval.next.what": "Suivante : {what}",
  "approval.next.none": "Aucune autre approbation n’attend votre décision.",
  "approval.next.toList": "Retour à la liste",
  "filter.author": "Demandeur",

  "edit.title": "Modifier la demande",
  "edit.save": "Enregistrer",
  "edit.reissueConfirm":
    "Cette modification nécessite une nouvelle approbation. Annuler l’approbation en cours et la recréer ?",
  "edit.saved": "Demande enregistrée",

  "request.typeRequired": "Veuillez choisir un type de demande",
  "request.typeUnknown": "Ce type de demande n’existe pas",
  "request.accountUnknown": "Ce compte n’existe pas",
  "request.typeAccountMismatch": "Ce type de demande n’appartient pas au compte choisi",
  "request.amountRequired": "Veuillez saisir un montant",
  "request.amountInvalid": "Veuillez saisir un montant positif avec au plus deux décimales",
  "request.amountRange": "Le montant doit être compris entre {min} et {max}",
  "request.purposeRequired": "Veuillez saisir un objet",
  "request.purposeTooLong": "L’objet ne peut pas dépasser {max} caractères",
  "request.budgetRequired": "Ce type de demande est récurrent : veuillez créer un budget",
  "request.budgetNotAllowed": "Ce type de demande n’autorise pas de budget",
  "request.codesRequired":
    "Le code projet, le code GL et le centre de coûts doivent être renseignés",
  "request.codesMismatch": "Ce code GL ou ce code projet n’appartient pas au centre de coûts",
  "request.costCenterNotAllowed":
    "Ce centre de coûts ne peut pas être utilisé avec ce type de demande",
  "request.currencyUnknown": "Cette devise n’est pas disponible",
  "request.vendorUrlInvalid": "Veuillez saisir une adresse web valide pour le fournisseur",
  "request.missingReceipts":
    "Certaines de vos transactions n’ont pas encore de justificatif : veuillez d’abord les fournir",
  "request.cannotRequest": "Vous n’êtes pas autorisé à créer des demandes",
  "request.notAllowed": "Cette action n’est pas autorisée pour cette demande",
  "request.reissueRequired": "Cette modification nécessite une nouvelle approbation",
  "request.busy": "La demande a été modifiée entre-temps, veuillez réessayer",
  "approval.reissuedNote":
    "{name} a modifié cette demande ({changes}) : l’approbation a été annulée et une nouvelle approbation ouverte.",
  "approval.decided": "Cette demande d’approbation a déjà été traitée",
  "approval.notAllowed": "Vous ne pouvez pas statuer sur cette demande d’approbation",
  "approval.rejectNoteRequired":
    "Ce type exige un commentaire avant un refus : veuillez d’abord en ajouter un",
  "comment.notAllowed": "Impossible d’ajouter des commentaires à cette demande",
  "comment.notDeletable": "Ce commentaire ne peut pas être supprimé",
  "flip.notFlippable":
    "Seules les transactions capturées ou autorisées, ni vérifiées ni déplacées, peuvent être transférées",
  "flip.mixedExpenses":
    "Seules les transactions d’une même dépense peuvent être transférées ensemble",
  "flip.wrongExpense": "Ces transactions ne sont pas sur cette dépense",

  "doc.tooLarge": "Le fichier est trop volumineux : {max} au plus",
  "doc.unsupportedType": "Ce type de fichier n’est pas pris en charge. Autorisés :",
  "doc.badContent":
    "Le fichier n’est pas ce que son nom indique : seuls les fichiers {allowed} sont acceptés",
  "doc.noFile": "Choisissez un fichier à envoyer",
  "doc.notAllowed": "Impossible d’ajouter des documents à cette transaction",
  "doc.reviewed": "Impossible de joindre un justificatif à une transaction déjà vérifiée",
  "doc.refused": "Les transactions refusées ou déplacées ne prennent ni justificatif ni document",
  "doc.tooMany": "Une transaction contient au plus {max} documents",
  "doc.notDeletable": "Ce document ne peut pas être supprimé",
  "doc.tokenExpired": "Ce lien a expiré. Veuillez réessayer.",
  "doc.uploadFailed": "L’envoi a échoué. Veuillez réessayer.",
  "doc.pdfFailed": "Le PDF n’a pas pu être affiché",
  "doc.pdfPage": "Page {page} sur {pages}",
  "doc.readOnly":
    "Cette transaction est vérifiée : ses justificatifs et documents ne peuvent plus être modifiés",
  "doc.badPreview": "L’aperçu doit être une image JPEG ou PNG d’au plus {max} pixels",
  "vat.readOnly": "Cette transaction est vérifiée et ne peut plus être modifiée",
  "vat.refused": "Les transactions refusées ou déplacées n’ont pas de TVA",
  "vat.accountingRequired": "Choisissez un code comptable",
  "vat.typeRequired": "Choisissez un type de justificatif",
  "vat.accountingDisabled": "Les codes comptables ne sont pas utilisés dans cette organisation",
  "vat.typeDisabled": "Les types de justificatif ne sont pas utilisés dans cette organisation",
  "vat.unknownAccountingCode": "Code comptable inconnu {code}",
  "vat.unknownType": "Type de justificatif inconnu {code}",
  "vat.unknownCountry": "Pays inconnu {country}",
  "vat.countryRequired": "Choisissez le pays de la TVA",
  "vat.unknownCode": "Le code de TVA {code} n’est pas un code de {country}",
  "vat.duplicateCode": "Le code de TVA {code} figure sur deux lignes",
  "vat.lineGap":
    "Remplissez les lignes de TVA dans l’ordre, sans ligne vide avant une ligne remplie",
  "vat.amountMismatch": "Ligne de TVA {line} : le montant doit être {expected}",
  "vat.sumTooHigh": "Le total des lignes de TVA dépasse le montant",
  "vat.receiptMissing": "Joignez un justificatif avant de vérifier la transaction",
  "vat.flagConflict": "Des lignes de TVA ont été données pour une transaction marquée sans TVA",
  "vat.tooManyLines": "Une transaction prend au plus {max} lignes de TVA",

  "card.notAllowed": "Cette action sur la carte n’est pas autorisée",
  "card.secureRequired": "Configurez d’abord le 3-D Secure",
  "card.revealNotAllowed": "Les données de la carte ne peuvent pas être affichées",
  "secure.bad.password": "Le mot de passe doit compter 4 à 30 lettres, chiffres ou {symbols}",
  "secure.bad.prefix": "Saisissez un indicatif pays, par exemple +33",
  "secure.bad.phone": "Saisissez un numéro de téléphone d’au moins 6 chiffres",
  "secure.pinText": "Votre code PIN 3-D Secure QCard est {pin}. Il est valable {minutes} minutes.",
  "secure.pinSubject": "Votre code PIN 3-D Secure QCard",
  "push.approval.title": "Approbation demandée",
  "push.approval.body": "{author} demande {amount} : {purpose}",
  "push.accepted.title": "Demande approuvée",
  "push.accepted.body": "{purpose} ({amount}) a été approuvée",
  "push.rejected.title": "Demande refusée",
  "push.rejected.body": "{purpose} ({amount}) a été refusée",
  "push.note": "Note : {note}",
  "push.purchase.title": "Paiement par carte autorisé",
  "push.purchase.body": "{amount} chez {merchant}",
  "push.refused.title": "Paiement par carte refusé",
  "push.refused.body": "{amount} chez {merchant} refusé : {reason}",
  "push.overdue.title": "Justificatif en retard",
  "push.overdue.body":
    "Ajoutez le justificatif de {amount} chez {merchant} : il était attendu le {date}",
  "push.declined.body": "{amount} chez {merchant}. {why}",
  "push.declined.frozen":
    "Carte bloquée : débloquez-la dans le portefeuille, puis payez à nouveau.",
  "push.declined.closed":
    "Carte clôturée : elle ne peut plus payer. Demandez-en une nouvelle par une nouvelle demande.",
  "push.declined.expired": "Carte expirée : demandez-en une nouvelle par une nouvelle demande.",
  "push.declined.invalidCard":
    "Carte inutilisable : ouvrez-la dans le portefeuille pour savoir pourquoi.",
  "push.declined.cvc":
    "Code de sécurité (CVC) refusé : vérifiez-le sur la carte dans le portefeuille et réessayez.",
  "push.declined.mcc":
    "Ce type de commerce n’est pas autorisé sur cette carte : payez autrement ou adressez-vous à votre service financier.",
  "push.declined.exceedsMax":
    "Montant supérieur au solde de la carte : demandez plus par une nouvelle demande.",
  "push.declined.exceededMax":
    "Montant supérieur à ce qui est provisionné : attendez la prochaine ligne de budget ou demandez plus.",
  "push.declined.verification":
    "Une donnée de la carte ne correspondait pas : vérifiez la date d’expiration dans le portefeuille et réessayez.",
  "push.declined.threeDSecure":
    "Pas encore de mot de passe 3-D Secure : définissez-le dans les paramètres 3-D Secure, puis payez à nouveau.",
  "push.declined.authentication":
    "Échec de la vérification 3-D Secure : vérifiez votre mot de passe 3-D Secure et réessayez.",
  "push.declined.invalidCurrency":
    "La carte ne peut pas payer dans cette devise : payez dans la devise de la carte ou autrement.",
  "push.declined.other":
    "Refusé par l’émetteur de la carte : ouvrez le paiement pour en voir la raison.",
  "mail.activation.subject": "Votre code d’activation QCard",
  "mail.activation.body":
    "Bonjour {fname},\n\nVotre code d’activation QCard est {code}.\nOuvrez QCard à l’adresse {url} et saisissez ce code pour activer votre appareil. Le code n’est utilisable qu’une seule fois et expire le {expires}.\n\nSi vous n’en avez pas fait la demande, ignorez cet e-mail.",
  "relay.timeout": "Le serveur a mis trop de temps à répondre. Veuillez réessayer.",
  "relay.unreachable": "Le serveur est injoignable pour le moment. Veuillez réessayer plus tard.",
} satisfies Partial<Dictionary>;
